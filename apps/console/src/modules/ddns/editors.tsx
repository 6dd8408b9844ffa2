/** Parts of the DDNS forms: proxy, IP source (with its test), webhook (presets, test), callback (presets). */
import {
  Alert,
  Badge,
  Button,
  Code,
  Group,
  NumberInput,
  PasswordInput,
  Select,
  Stack,
  Switch,
  Text,
  TextInput,
  Textarea,
} from '@mantine/core';
import {
  CALLBACK_PRESETS,
  SECRET_MASK,
  WEBHOOK_PRESETS,
  ZDdnsIpTestRequest,
  ZDdnsWebhookTestRequest,
  coreRoutes,
  ddnsRoutes,
  formatIssues,
  type DdnsProxy,
} from '@lucky/contracts';
import { useMutation, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { ApiError, call } from '../../api';
import { lang } from '../../i18n';
import { lines } from '../../lib/helpers';
import { applyCallbackPreset, applyWebhookPreset, isMask, webhookToTask, type CallbackForm, type SourceForm, type WebhookForm } from './form';
import { ddnsText } from './i18n';
import { ddnsProvidersQuery, netInterfacesQuery } from './queries';

const METHODS = ['GET', 'POST', 'PUT', 'PATCH'] as const;
const mono = { input: { fontFamily: 'monospace', fontSize: 12 } };
/** Hints under the inputs, so inputs side by side line up whatever the hints' lengths. */
export const HINT_BELOW: ('label' | 'input' | 'description' | 'error')[] = ['label', 'input', 'description', 'error'];

/** Where a field's error comes from: the form's first problem, by path under this editor's prefix. */
export type ErrorAt = (field: string) => string | undefined;

/** Selects the whole mask on focus, so typing replaces a stored secret instead of appending to it. */
const selectMask = (e: React.FocusEvent<HTMLInputElement>) => {
  if (isMask(e.currentTarget.value)) e.currentTarget.select();
};

export function SecretInput(props: { label: string; value: string; onChange: (v: string) => void; error?: string | undefined; testId?: string }) {
  return (
    <PasswordInput
      label={props.label}
      value={props.value}
      onChange={(e) => props.onChange(e.currentTarget.value)}
      onFocus={selectMask}
      description={isMask(props.value) ? ddnsText('secretKept', { mask: SECRET_MASK }) : undefined}
      error={props.error}
      autoComplete="new-password"
      data-testid={props.testId}
      inputWrapperOrder={HINT_BELOW}
    />
  );
}

export function ProxyEditor(props: { value: DdnsProxy; onChange: (v: DdnsProxy) => void; errorAt: ErrorAt; label?: string; testId: string }) {
  const p = props.value;
  const set = (patch: Partial<DdnsProxy>) => props.onChange({ ...p, ...patch });
  return (
    <Stack gap="xs">
      <Select
        label={props.label ?? ddnsText('proxyType')}
        data={(['none', 'http', 'https', 'socks5'] as const).map((v) => ({ value: v, label: ddnsText(`proxy.${v}`) }))}
        value={p.type}
        allowDeselect={false}
        onChange={(v) => v && set({ type: v as DdnsProxy['type'] })}
        data-testid={`${props.testId}-type`}
      />
      {p.type !== 'none' && (
        <>
          <TextInput
            label={ddnsText('proxyAddress')}
            description={ddnsText('proxyAddressHint')}
            value={p.address}
            onChange={(e) => set({ address: e.currentTarget.value })}
            error={props.errorAt('address')}
            data-testid={`${props.testId}-address`}
          />
          <Group grow align="flex-start">
            <TextInput label={ddnsText('proxyUser')} value={p.user} onChange={(e) => set({ user: e.currentTarget.value })} autoComplete="off" />
            <SecretInput label={ddnsText('proxyPassword')} value={p.password} onChange={(v) => set({ password: v })} />
          </Group>
        </>
      )}
    </Stack>
  );
}

function TestResult(props: { ok: boolean; children: React.ReactNode; testId: string }) {
  return (
    <Alert color={props.ok ? 'green' : 'red'} p="xs" data-testid={props.testId}>
      <Text fz="sm" style={{ wordBreak: 'break-word' }}>
        {props.children}
      </Text>
    </Alert>
  );
}

const errorText = (err: unknown) => (err instanceof ApiError ? err.message : String(err));

/** The task-level settings an IP test uses (proxy and timeouts apply to URL sources). */
export interface IpTestContext {
  proxy: DdnsProxy;
  httpTimeout: number;
  skipVerify: boolean;
}

export function SourceEditor(props: {
  family: 'ipv4' | 'ipv6';
  value: SourceForm;
  onChange: (v: SourceForm) => void;
  customized: boolean;
  errorAt: ErrorAt;
  context: IpTestContext;
}) {
  const { family, value: s } = props;
  const set = (patch: Partial<SourceForm>) => props.onChange({ ...s, ...patch });
  const tid = `ddns-${family}`;
  const [localError, setLocalError] = useState<string | null>(null);
  const ifaces = useQuery({ ...netInterfacesQuery(), enabled: s.type === 'interface' });

  const test = useMutation({
    mutationFn: async () => {
      const body = {
        family,
        source: {
          ...s,
          urls: lines(s.urls),
          commandTimeout: typeof s.commandTimeout === 'number' ? s.commandTimeout : Number(s.commandTimeout),
        },
        proxy: props.context.proxy,
        httpTimeout: Number.isInteger(props.context.httpTimeout) && props.context.httpTimeout >= 3 && props.context.httpTimeout <= 60 ? props.context.httpTimeout : 10,
        skipVerify: props.context.skipVerify,
      };
      // The interface's candidates are worth showing even when the source finds nothing.
      const [r, reg] = await Promise.all([
        call(ddnsRoutes.ipTest, { body }, { silent: true }).then(
          (ok) => ({ ip: ok.ip, detail: ok.detail, error: null }),
          (e: unknown) => ({ ip: '', detail: '', error: errorText(e) }),
        ),
        s.type === 'interface' && s.interface
          ? call(coreRoutes.ipRegTest, { query: { iptype: family === 'ipv4' ? 'IPv4' : 'IPv6', netinterface: s.interface, ipreg: s.rule } }, { silent: true }).catch(
              () => null,
            )
          : Promise.resolve(null),
      ]);
      return { ...r, reg };
    },
  });

  const runTest = () => {
    setLocalError(null);
    test.reset();
    const body = { family, source: { ...s, urls: lines(s.urls), commandTimeout: Number(s.commandTimeout) } };
    if (!ZDdnsIpTestRequest.safeParse(body).success) {
      setLocalError(formatIssues(ZDdnsIpTestRequest, body, lang));
      return;
    }
    test.mutate();
  };

  const types = family === 'ipv4' ? (['url', 'interface', 'command'] as const) : (['url', 'interface', 'command', 'odhcpd'] as const);
  const ifaceOptions = (ifaces.data?.interfaces ?? [])
    .map((i) => {
      const addrs = (family === 'ipv4' ? i.ipv4 : i.ipv6).map((a) => a.address);
      return { value: i.name, label: addrs.length ? `${i.name} (${addrs.slice(0, 2).join(', ')}${addrs.length > 2 ? ', …' : ''})` : i.name };
    });
  if (s.interface && !ifaceOptions.some((o) => o.value === s.interface)) ifaceOptions.push({ value: s.interface, label: s.interface });

  return (
    <Stack gap="xs" data-testid={`${tid}-source`}>
      <Select
        label={family === 'ipv4' ? ddnsText('ipv4Source') : ddnsText('ipv6Source')}
        data={types.map((v) => ({ value: v, label: ddnsText(`source.${v}`) }))}
        value={s.type}
        allowDeselect={false}
        onChange={(v) => {
          if (!v) return;
          test.reset();
          setLocalError(null);
          set({ type: v as SourceForm['type'] });
        }}
        error={props.errorAt('type')}
        data-testid={`${tid}-type`}
      />
      {s.type === 'url' && (
        <>
          <Textarea
            label={ddnsText('urls')}
            description={ddnsText('urlsHint')}
            autosize
            minRows={2}
            maxRows={6}
            value={s.urls}
            onChange={(e) => set({ urls: e.currentTarget.value })}
            error={props.errorAt('urls')}
            styles={mono}
            data-testid={`${tid}-urls`}
          />
          {props.customized && (
            <TextInput label={ddnsText('regex')} description={ddnsText('regexHint')} value={s.regex} onChange={(e) => set({ regex: e.currentTarget.value })} error={props.errorAt('regex')} styles={mono} />
          )}
        </>
      )}
      {s.type === 'interface' && (
        <Group grow align="flex-start">
          <Select
            label={ddnsText('netInterface')}
            placeholder={ifaces.isPending ? ddnsText('netInterfacesLoading') : ddnsText('netInterfacePlaceholder')}
            data={ifaceOptions}
            value={s.interface || null}
            onChange={(v) => set({ interface: v ?? '' })}
            searchable
            error={props.errorAt('interface')}
            data-testid={`${tid}-interface`}
            inputWrapperOrder={HINT_BELOW}
          />
          <TextInput
            label={ddnsText('rule')}
            description={ddnsText('ruleHint')}
            value={s.rule}
            onChange={(e) => set({ rule: e.currentTarget.value })}
            error={props.errorAt('rule')}
            styles={mono}
            data-testid={`${tid}-rule`}
            inputWrapperOrder={HINT_BELOW}
          />
        </Group>
      )}
      {s.type === 'command' && (
        <>
          <Textarea
            label={ddnsText('command')}
            description={ddnsText('commandHint')}
            autosize
            minRows={1}
            maxRows={6}
            value={s.command}
            onChange={(e) => set({ command: e.currentTarget.value })}
            error={props.errorAt('command')}
            styles={mono}
            data-testid={`${tid}-command`}
          />
          {props.customized && (
            <NumberInput
              clampBehavior="none"
              allowDecimal={false}
              label={ddnsText('commandTimeout')}
              min={1}
              max={120}
              value={s.commandTimeout}
              onChange={(v) => set({ commandTimeout: v })}
              error={props.errorAt('commandTimeout')}
              maw={200}
            />
          )}
        </>
      )}
      {s.type === 'odhcpd' && (
        <>
          <Text fz="xs" c="dimmed">
            {ddnsText('odhcpdHint')}
          </Text>
          <Group grow align="flex-start">
            <TextInput label={ddnsText('odhcpdFile')} value={s.odhcpdFile} onChange={(e) => set({ odhcpdFile: e.currentTarget.value })} error={props.errorAt('odhcpdFile')} />
            <TextInput label={ddnsText('odhcpdHost')} value={s.odhcpdHost} onChange={(e) => set({ odhcpdHost: e.currentTarget.value })} error={props.errorAt('odhcpdHost')} />
          </Group>
        </>
      )}
      <Group gap="xs" align="center">
        <Button size="xs" variant="light" onClick={runTest} loading={test.isPending} data-testid={`${tid}-test`}>
          {ddnsText('test')}
        </Button>
      </Group>
      {localError && (
        <TestResult ok={false} testId={`${tid}-test-result`}>
          {localError}
        </TestResult>
      )}
      {test.isError && (
        <TestResult ok={false} testId={`${tid}-test-result`}>
          {ddnsText('testFailed', { msg: errorText(test.error) })}
        </TestResult>
      )}
      {test.data && (
        <TestResult ok={test.data.error === null} testId={`${tid}-test-result`}>
          {test.data.error === null ? ddnsText('testResult', { ip: test.data.ip, detail: test.data.detail }) : ddnsText('testFailed', { msg: test.data.error })}
          {test.data.reg && (
            <>
              <br />
              {ddnsText('candidates')}:{' '}
              {test.data.reg.candidates.length === 0
                ? ddnsText('noCandidates')
                : test.data.reg.candidates.map((c) => (
                    <Badge key={c} mr={4} variant={test.data.reg!.matches.includes(c) ? 'filled' : 'outline'} color={c === test.data.ip ? 'green' : 'gray'} tt="none">
                      {c}
                    </Badge>
                  ))}
            </>
          )}
        </TestResult>
      )}
    </Stack>
  );
}

export function WebhookEditor(props: {
  value: WebhookForm;
  onChange: (v: WebhookForm) => void;
  errorAt: ErrorAt;
  customized: boolean;
  httpTimeout: number;
  skipVerify: boolean;
  testId: string;
}) {
  const w = props.value;
  const set = (patch: Partial<WebhookForm>) => props.onChange({ ...w, ...patch });
  const providers = useQuery(ddnsProvidersQuery());
  const [localError, setLocalError] = useState<string | null>(null);
  const test = useMutation({
    mutationFn: (body: { webhook: ReturnType<typeof webhookToTask>; httpTimeout: number; skipVerify: boolean }) =>
      call(ddnsRoutes.webhookTest, { body }, { silent: true }),
  });
  const runTest = () => {
    setLocalError(null);
    test.reset();
    const timeout = Number.isInteger(props.httpTimeout) && props.httpTimeout >= 3 && props.httpTimeout <= 60 ? props.httpTimeout : 10;
    const body = { webhook: { ...webhookToTask(w), enable: true }, httpTimeout: timeout, skipVerify: props.skipVerify };
    if (!ZDdnsWebhookTestRequest.safeParse(body).success) {
      setLocalError(formatIssues(ZDdnsWebhookTestRequest, body, lang));
      return;
    }
    test.mutate(body);
  };
  const tid = props.testId;
  return (
    <Stack gap="xs">
      <Switch label={ddnsText('webhookEnable')} description={ddnsText('webhookHint')} checked={w.enable} onChange={(e) => set({ enable: e.currentTarget.checked })} data-testid={`${tid}-enable`} />
      {w.enable && (
        <>
          <Group grow align="flex-start">
            <Select
              label={ddnsText('webhookPreset')}
              data={WEBHOOK_PRESETS.map((p) => ({ value: p, label: ddnsText(`whPreset.${p}`) }))}
              value={w.preset}
              allowDeselect={false}
              onChange={(v) => v && props.onChange(applyWebhookPreset(w, v as WebhookForm['preset'], providers.data?.webhookPresets[v]))}
              data-testid={`${tid}-preset`}
            />
            <Select
              label={ddnsText('method')}
              data={[...METHODS]}
              value={w.method}
              allowDeselect={false}
              onChange={(v) => v && set({ method: v as WebhookForm['method'] })}
              error={props.errorAt('method')}
              data-testid={`${tid}-method`}
            />
          </Group>
          <TextInput
            label={ddnsText('webhookUrl')}
            description={ddnsText('webhookVars')}
            value={w.url}
            onChange={(e) => set({ url: e.currentTarget.value })}
            error={props.errorAt('url')}
            styles={mono}
            data-testid={`${tid}-url`}
          />
          {props.customized && (
            <>
              <Textarea
                label={ddnsText('headers')}
                description={ddnsText('headersHint')}
                autosize
                minRows={1}
                maxRows={6}
                value={w.headers}
                onChange={(e) => set({ headers: e.currentTarget.value })}
                error={props.errorAt('headers')}
                styles={mono}
              />
              {w.method !== 'GET' && (
                <Textarea
                  label={ddnsText('body')}
                  autosize
                  minRows={2}
                  maxRows={10}
                  value={w.body}
                  onChange={(e) => set({ body: e.currentTarget.value })}
                  error={props.errorAt('body')}
                  styles={mono}
                  data-testid={`${tid}-body`}
                />
              )}
              <Group grow align="center">
                <Switch label={ddnsText('webhookOnFailure')} checked={w.onFailure} onChange={(e) => set({ onFailure: e.currentTarget.checked })} />
                <Switch
                  label={ddnsText('successCheck')}
                  checked={w.successCheck.enable}
                  onChange={(e) => set({ successCheck: { ...w.successCheck, enable: e.currentTarget.checked } })}
                />
              </Group>
              {w.successCheck.enable && (
                <TextInput
                  label={ddnsText('successText')}
                  value={w.successCheck.text}
                  onChange={(e) => set({ successCheck: { ...w.successCheck, text: e.currentTarget.value } })}
                  error={props.errorAt('successCheck')}
                  styles={mono}
                />
              )}
              <ProxyEditor
                label={ddnsText('webhookProxy')}
                value={w.proxy}
                onChange={(proxy) => set({ proxy })}
                errorAt={(f) => props.errorAt(`proxy.${f}`)}
                testId={`${tid}-proxy`}
              />
            </>
          )}
          <Group>
            <Button size="xs" variant="light" onClick={runTest} loading={test.isPending} data-testid={`${tid}-test`}>
              {ddnsText('webhookTest')}
            </Button>
          </Group>
          {localError && (
            <TestResult ok={false} testId={`${tid}-test-result`}>
              {localError}
            </TestResult>
          )}
          {test.isError && (
            <TestResult ok={false} testId={`${tid}-test-result`}>
              {ddnsText('webhookTestBad', { msg: errorText(test.error) })}
            </TestResult>
          )}
          {test.data && (
            <TestResult ok={test.data.success} testId={`${tid}-test-result`}>
              {test.data.success ? ddnsText('webhookTestOk', { status: test.data.status }) : ddnsText('webhookTestBad', { msg: test.data.msg || `HTTP ${test.data.status}` })}
              {test.data.body && (
                <>
                  <br />
                  {ddnsText('webhookAnswer')}: <Code>{test.data.body.slice(0, 300)}</Code>
                </>
              )}
            </TestResult>
          )}
        </>
      )}
    </Stack>
  );
}

export function CallbackEditor(props: { value: CallbackForm; onChange: (v: CallbackForm) => void; errorAt: ErrorAt; customized: boolean }) {
  const c = props.value;
  const set = (patch: Partial<CallbackForm>) => props.onChange({ ...c, ...patch });
  const providers = useQuery(ddnsProvidersQuery());
  return (
    <Stack gap="xs">
      <Group grow align="flex-start">
        <Select
          label={ddnsText('callbackPreset')}
          data={CALLBACK_PRESETS.map((p) => ({ value: p, label: ddnsText(`cbPreset.${p}`) }))}
          value={c.preset}
          allowDeselect={false}
          onChange={(v) => v && props.onChange(applyCallbackPreset(c, v as CallbackForm['preset'], providers.data?.callbackPresets[v]))}
          data-testid="ddns-callback-preset"
        />
        <Select
          label={ddnsText('method')}
          data={[...METHODS]}
          value={c.method}
          allowDeselect={false}
          onChange={(v) => v && set({ method: v as CallbackForm['method'] })}
          error={props.errorAt('method')}
          data-testid="ddns-callback-method"
        />
      </Group>
      <TextInput
        label={ddnsText('callbackUrl')}
        description={ddnsText('callbackVars')}
        value={c.url}
        onChange={(e) => set({ url: e.currentTarget.value })}
        error={props.errorAt('url')}
        styles={mono}
        data-testid="ddns-callback-url"
      />
      {props.customized && (
        <>
          <Textarea
            label={ddnsText('headers')}
            description={ddnsText('headersHint')}
            autosize
            minRows={1}
            maxRows={6}
            value={c.headers}
            onChange={(e) => set({ headers: e.currentTarget.value })}
            error={props.errorAt('headers')}
            styles={mono}
          />
          {c.method !== 'GET' && (
            <Textarea label={ddnsText('body')} autosize minRows={2} maxRows={10} value={c.body} onChange={(e) => set({ body: e.currentTarget.value })} error={props.errorAt('body')} styles={mono} />
          )}
          <Switch label={ddnsText('successCheck')} checked={c.successCheck.enable} onChange={(e) => set({ successCheck: { ...c.successCheck, enable: e.currentTarget.checked } })} />
          {c.successCheck.enable && (
            <TextInput
              label={ddnsText('successText')}
              value={c.successCheck.text}
              onChange={(e) => set({ successCheck: { ...c.successCheck, text: e.currentTarget.value } })}
              error={props.errorAt('successCheck')}
              styles={mono}
            />
          )}
        </>
      )}
    </Stack>
  );
}
