/**
 * A portal user's second factor in the user form: its state, "set up" (a new secret from the
 * daemon, shown as a QR code and as text, then one code from the app checked against it), and
 * "remove". Only a checked secret goes into the form, and the user is saved with it like any other
 * field: a secret typed wrong into an app never locks anyone out.
 */
import { Alert, Badge, Button, Code, Group, Image, Input, Paper, Stack, Text, TextInput } from '@mantine/core';
import { portalRoutes, type RouteResponse } from '@lucky/contracts';
import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { ApiError, call } from '../../api';
import { totpState, type TotpState } from './form';
import { portalText as t } from './i18n';

const STATE_COLOR: Record<TotpState, string> = { on: 'green', new: 'blue', off: 'gray' };

/** On, set up in this form but not saved yet, or off. */
export function TotpBadge(props: { totp: string; testId: string }) {
  const state = totpState(props.totp);
  return (
    <Badge size="sm" variant="light" color={STATE_COLOR[state]} tt="none" data-testid={props.testId} data-state={state}>
      {t(`totp.${state}`)}
    </Badge>
  );
}

type Enrolment = RouteResponse<typeof portalRoutes.totpStart>;

export function TotpField(props: { name: string; value: string; onChange: (totp: string) => void; error: string | undefined }) {
  const [enrolment, setEnrolment] = useState<Enrolment | null>(null);
  // The daemon names the secret after the user (the app shows it so): no call before the name is valid.
  const named = portalRoutes.totpStart.body.safeParse({ name: props.name }).success;
  const start = useMutation({
    mutationFn: (name: string) => call(portalRoutes.totpStart, { body: { name: name.trim() } }),
    onSuccess: setEnrolment,
  });
  const on = props.value !== '';
  return (
    <Input.Wrapper label={t('totp')} error={props.error}>
      <Stack gap="xs" mt={4}>
        <Group gap="xs">
          <TotpBadge totp={props.value} testId="portal-totp-state" />
          <Button size="xs" variant="light" onClick={() => start.mutate(props.name)} loading={start.isPending} disabled={!named} data-testid="portal-totp-start">
            {on ? t('totpRestart') : t('totpStart')}
          </Button>
          {on && (
            <Button size="xs" variant="subtle" color="red" onClick={() => props.onChange('')} data-testid="portal-totp-remove">
              {t('totpRemove')}
            </Button>
          )}
          {!named && (
            <Text fz="xs" c="dimmed">
              {t('totpNeedsName')}
            </Text>
          )}
        </Group>
        {enrolment && (
          <TotpEnrolment
            key={enrolment.secret}
            enrolment={enrolment}
            onChecked={() => {
              props.onChange(enrolment.secret);
              setEnrolment(null);
            }}
            onCancel={() => setEnrolment(null)}
          />
        )}
      </Stack>
    </Input.Wrapper>
  );
}

/** The new secret as the app takes it, and the code that proves the app has it. */
function TotpEnrolment(props: { enrolment: Enrolment; onChecked: () => void; onCancel: () => void }) {
  const { secret, qrcode } = props.enrolment;
  const [code, setCode] = useState('');
  const check = useMutation({
    mutationFn: (body: { secret: string; code: string }) => call(portalRoutes.totpCheck, { body }, { silent: true }),
    onSuccess: (r) => r.valid && props.onChecked(),
  });
  const problem = check.error ? (check.error instanceof ApiError ? check.error.message : String(check.error)) : check.data && !check.data.valid ? t('totpWrong') : null;
  const send = () => code.trim() !== '' && check.mutate({ secret, code: code.replace(/\s/g, '') });
  return (
    <Paper withBorder p="sm" data-testid="portal-totp-enrol">
      <Stack gap="xs">
        <Text fz="sm">{t('totpStep1')}</Text>
        <Group justify="center">
          <Image src={qrcode} alt={t('totpQrAlt')} w={180} h={180} fit="contain" data-testid="portal-totp-qr" />
        </Group>
        <Group gap="xs" justify="center" wrap="nowrap">
          <Text fz="sm" c="dimmed">
            {t('totpSecret')}
          </Text>
          <Code fz="sm" style={{ wordBreak: 'break-all', letterSpacing: 1 }} data-testid="portal-totp-secret">
            {secret}
          </Code>
        </Group>
        <Text fz="sm">{t('totpStep2')}</Text>
        <Group align="flex-start" gap="xs" wrap="nowrap">
          <TextInput
            aria-label={t('totpCode')}
            placeholder={t('totpCode')}
            inputMode="numeric"
            autoComplete="one-time-code"
            maxLength={9}
            value={code}
            onChange={(e) => {
              setCode(e.currentTarget.value);
              // An answer about another code would mislead.
              check.reset();
            }}
            // Enter checks the code: it must not submit the user form around it.
            onKeyDown={(e) => {
              if (e.key !== 'Enter') return;
              e.preventDefault();
              send();
            }}
            style={{ flex: 1 }}
            data-testid="portal-totp-code"
          />
          <Button onClick={send} loading={check.isPending} disabled={code.trim() === ''} data-testid="portal-totp-check">
            {t('totpCheck')}
          </Button>
          <Button variant="default" onClick={props.onCancel} data-testid="portal-totp-cancel">
            {t('cancel')}
          </Button>
        </Group>
        {problem && (
          <Alert color="red" p="xs" data-testid="portal-totp-error">
            {problem}
          </Alert>
        )}
      </Stack>
    </Paper>
  );
}
