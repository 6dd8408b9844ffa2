/** 2FA: enrol (QR code + secret once, confirm with a code, recovery codes once), disable, new recovery codes. */
import { Alert, Badge, Button, Card, Code, Group, Image, Modal, PasswordInput, SimpleGrid, Stack, Text, TextInput } from '@mantine/core';
import { coreRoutes, formatIssues, safeRoutes } from '@lucky/contracts';
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { ApiError, call } from '../../api';
import { pushNotice } from '../../api/notices';
import { lang } from '../../i18n';
import { cleanTotp, recoveryText } from './helpers';
import { safeText } from './i18n';
import { CopyBtn } from './ui';

interface Enrolment {
  secret: string;
  otpauthUrl: string;
  qrcode: string;
}

const errText = (err: unknown) => (err instanceof ApiError ? err.message : String(err));

export function TwoFASection(props: { enabled: boolean; codesLeft: number }) {
  const queryClient = useQueryClient();
  const [enrol, setEnrol] = useState<Enrolment | null>(null);
  const [code, setCode] = useState('');
  const [codes, setCodes] = useState<string[] | null>(null);
  const [pwdAction, setPwdAction] = useState<'disable' | 'regenerate' | null>(null);
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const refresh = async () => {
    await queryClient.invalidateQueries({ queryKey: ['safe'] });
    // /version tells the login page (and the shell's stored flag) whether to ask for a code.
    await queryClient.invalidateQueries({ queryKey: ['version'] });
    await queryClient.invalidateQueries({ queryKey: ['baseconfigure'] });
  };

  const start = async () => {
    setBusy(true);
    try {
      const r = await call(coreRoutes.twoFAPassword, {});
      setCode('');
      setError(null);
      setEnrol({ secret: r.secret, otpauthUrl: r.otpauthUrl, qrcode: r.qrcode });
    } catch {
      // the client has shown the daemon's message
    } finally {
      setBusy(false);
    }
  };

  const confirm = async () => {
    setError(null);
    const body = { code: cleanTotp(code) };
    if (!safeRoutes.twoFAEnable.body.safeParse(body).success) {
      setError(/^\d*$/.test(body.code) && body.code.length !== 6 ? safeText('tf.codeInvalid') : formatIssues(safeRoutes.twoFAEnable.body, body, lang));
      return;
    }
    setBusy(true);
    try {
      const r = await call(safeRoutes.twoFAEnable, { body }, { silent: true });
      setEnrol(null);
      setCodes(r.recoveryCodes);
      pushNotice(safeText('tf.enabled'), 'green');
      await refresh();
    } catch (err) {
      setError(errText(err));
    } finally {
      setBusy(false);
    }
  };

  const withPassword = async () => {
    setError(null);
    const body = { password };
    const schema = pwdAction === 'disable' ? safeRoutes.twoFADisable.body : safeRoutes.twoFARecovery.body;
    if (!schema.safeParse(body).success) {
      setError(formatIssues(schema, body, lang));
      return;
    }
    setBusy(true);
    try {
      if (pwdAction === 'disable') {
        await call(safeRoutes.twoFADisable, { body }, { silent: true });
        pushNotice(safeText('tf.disabled'), 'green');
      } else {
        const r = await call(safeRoutes.twoFARecovery, { body }, { silent: true });
        setCodes(r.recoveryCodes);
      }
      setPwdAction(null);
      setPassword('');
      await refresh();
    } catch (err) {
      setError(errText(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <Card withBorder data-testid="safe-2fa">
      <Stack gap="sm">
        <Group gap="sm">
          <Badge size="lg" variant="light" tt="none" color={props.enabled ? 'green' : 'gray'} data-testid="safe-2fa-state" data-on={props.enabled}>
            {props.enabled ? safeText('tf.statusOn') : safeText('tf.statusOff')}
          </Badge>
          {props.enabled && (
            <Text fz="sm" c={props.codesLeft <= 2 ? 'orange' : 'dimmed'} data-testid="safe-2fa-codes-left">
              {safeText('tf.codesLeft', { n: props.codesLeft })}
            </Text>
          )}
        </Group>
        <Text fz="sm" c="dimmed">
          {safeText('tf.intro')}
        </Text>
        {props.enabled && props.codesLeft <= 2 && (
          <Alert color="orange" p="xs">
            {safeText('tf.codesLow')}
          </Alert>
        )}
        <Group>
          {props.enabled ? (
            <>
              <Button variant="default" onClick={() => (setError(null), setPassword(''), setPwdAction('regenerate'))} data-testid="safe-2fa-regenerate">
                {safeText('tf.regenerate')}
              </Button>
              <Button color="red" variant="light" onClick={() => (setError(null), setPassword(''), setPwdAction('disable'))} data-testid="safe-2fa-disable">
                {safeText('tf.disable')}
              </Button>
            </>
          ) : (
            <Button onClick={() => void start()} loading={busy && !enrol} data-testid="safe-2fa-enable">
              {safeText('tf.enable')}
            </Button>
          )}
        </Group>
        <Text fz="xs" c="dimmed">
          {safeText('tf.cliHint')}
        </Text>
      </Stack>

      <Modal opened={enrol !== null} onClose={() => setEnrol(null)} title={safeText('tf.enrolTitle')} size="md" closeOnClickOutside={false}>
        {enrol && (
          <form
            onSubmit={(e) => {
              e.preventDefault();
              void confirm();
            }}
            noValidate
          >
            <Stack gap="sm">
              <Text fz="sm">{safeText('tf.step1')}</Text>
              <Group justify="center">
                <Image src={enrol.qrcode} alt={safeText('tf.qrAlt')} w={200} h={200} fit="contain" data-testid="safe-2fa-qr" />
              </Group>
              <Group gap="xs" justify="center" wrap="nowrap">
                <Text fz="sm" c="dimmed">
                  {safeText('tf.secret')}:
                </Text>
                <Code fz="sm" data-testid="safe-2fa-secret" style={{ wordBreak: 'break-all', letterSpacing: 1 }}>
                  {enrol.secret}
                </Code>
                <CopyBtn text={enrol.secret} />
              </Group>
              <Text fz="sm">{safeText('tf.step2')}</Text>
              <TextInput
                label={safeText('tf.code')}
                placeholder={safeText('tf.codePlaceholder')}
                inputMode="numeric"
                autoComplete="one-time-code"
                maxLength={9}
                value={code}
                onChange={(e) => setCode(e.currentTarget.value)}
                data-testid="safe-2fa-code"
                data-autofocus
              />
              {error && (
                <Alert color="red" p="xs" data-testid="safe-2fa-error">
                  {error}
                </Alert>
              )}
              <Group justify="flex-end">
                <Button variant="default" onClick={() => setEnrol(null)}>
                  {safeText('cancel')}
                </Button>
                <Button type="submit" loading={busy} data-testid="safe-2fa-confirm">
                  {safeText('tf.confirmEnable')}
                </Button>
              </Group>
            </Stack>
          </form>
        )}
      </Modal>

      <Modal
        opened={codes !== null}
        onClose={() => setCodes(null)}
        title={safeText('tf.recoveryTitle')}
        size="md"
        closeOnClickOutside={false}
        closeOnEscape={false}
      >
        {codes && (
          <Stack gap="sm">
            <Alert color="orange" p="xs">
              {safeText('tf.recoveryIntro')}
            </Alert>
            <SimpleGrid cols={2} spacing="xs" data-testid="safe-recovery-codes">
              {codes.map((c) => (
                <Code key={c} fz="md" ta="center" py={4} data-testid="safe-recovery-code">
                  {c}
                </Code>
              ))}
            </SimpleGrid>
            <Group justify="space-between">
              <CopyBtn text={recoveryText(codes)} testid="safe-recovery-copy" />
              <Button onClick={() => setCodes(null)} data-testid="safe-recovery-done">
                {safeText('tf.recoverySaved')}
              </Button>
            </Group>
          </Stack>
        )}
      </Modal>

      <Modal
        opened={pwdAction !== null}
        onClose={() => setPwdAction(null)}
        title={pwdAction === 'disable' ? safeText('tf.passwordTitleDisable') : safeText('tf.passwordTitleRegenerate')}
        size="sm"
        centered
      >
        <form
          onSubmit={(e) => {
            e.preventDefault();
            void withPassword();
          }}
          noValidate
        >
          <Stack gap="sm">
            <Text fz="sm">{safeText('tf.passwordPrompt')}</Text>
            {pwdAction === 'regenerate' && (
              <Text fz="sm" c="orange">
                {safeText('tf.regenerateWarn')}
              </Text>
            )}
            <PasswordInput
              label={safeText('tf.password')}
              autoComplete="current-password"
              value={password}
              onChange={(e) => setPassword(e.currentTarget.value)}
              data-testid="safe-2fa-password"
              data-autofocus
            />
            {error && (
              <Alert color="red" p="xs" data-testid="safe-2fa-password-error">
                {error}
              </Alert>
            )}
            <Group justify="flex-end">
              <Button variant="default" onClick={() => setPwdAction(null)}>
                {safeText('cancel')}
              </Button>
              <Button type="submit" color={pwdAction === 'disable' ? 'red' : 'blue'} loading={busy} data-testid="safe-2fa-password-submit">
                {safeText('confirm')}
              </Button>
            </Group>
          </Stack>
        </form>
      </Modal>
    </Card>
  );
}
