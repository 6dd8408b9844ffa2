/** Parts of the web forms: a service of each type, access settings (auth, filters, cache, CORS, robots), certificates. */
import {
  Accordion,
  ActionIcon,
  Badge,
  Button,
  FileButton,
  Group,
  NumberInput,
  PasswordInput,
  SegmentedControl,
  Select,
  Stack,
  Switch,
  Text,
  TextInput,
  Textarea,
} from '@mantine/core';
import { DEFAULT_CLIENT_IP_HEADERS, DEFAULT_CORS_METHODS } from '@lucky/contracts';
import { BALANCES, FILTER_MODES, keepsPassword, REDIRECT_CODES, SERVICE_TYPES, type AccessForm, type CertForm, type ServiceForm } from './form';
import { webText } from './i18n';

export const mono = { input: { fontFamily: 'monospace', fontSize: 12 } };

/** Where a field's error comes from: the form's first problem, by path under this editor's prefix. */
export type ErrorAt = (field: string) => string | undefined;

export function ServiceEditor(props: { value: ServiceForm; onChange: (v: ServiceForm) => void; errorAt: ErrorAt; testId: string }) {
  const s = props.value;
  const set = (patch: Partial<ServiceForm>) => props.onChange({ ...s, ...patch });
  const tid = props.testId;
  const bool = (key: 'websocket' | 'useRequestHost' | 'skipTlsVerify' | 'forwardedHeaders' | 'listing', label: string) => (
    <Switch label={label} checked={s[key]} onChange={(e) => set({ [key]: e.currentTarget.checked })} data-testid={`${tid}-${key}`} />
  );
  return (
    <Stack gap="xs" data-testid={tid}>
      <Select
        label={webText('serviceType')}
        data={SERVICE_TYPES.map((v) => ({ value: v, label: webText(`type.${v}`) }))}
        value={s.type}
        allowDeselect={false}
        onChange={(v) => v && set({ type: v as ServiceForm['type'] })}
        data-testid={`${tid}-type`}
        maw={320}
      />
      {s.type === 'proxy' && (
        <>
          <Textarea
            label={webText('targets')}
            description={webText('targetsHint')}
            placeholder={props.errorAt('targets') ? undefined : 'http://192.168.1.10:8080'}
            autosize
            minRows={2}
            maxRows={8}
            value={s.targets}
            onChange={(e) => set({ targets: e.currentTarget.value })}
            error={props.errorAt('targets')}
            styles={mono}
            data-testid={`${tid}-targets`}
          />
          <Group grow align="flex-start">
            <Select
              label={webText('balance')}
              data={BALANCES.map((v) => ({ value: v, label: webText(`balance.${v}`) }))}
              value={s.balance}
              allowDeselect={false}
              onChange={(v) => v && set({ balance: v as ServiceForm['balance'] })}
            />
            <NumberInput
              clampBehavior="none"
              allowDecimal={false}
              label={webText('maxFails')}
              min={1}
              max={100}
              value={s.maxFails}
              onChange={(v) => set({ maxFails: v })}
              error={props.errorAt('maxFails')}
            />
            <NumberInput
              clampBehavior="none"
              allowDecimal={false}
              label={webText('failTimeout')}
              min={1}
              max={3600}
              value={s.failTimeoutSeconds}
              onChange={(v) => set({ failTimeoutSeconds: v })}
              error={props.errorAt('failTimeoutSeconds')}
            />
            <NumberInput
              clampBehavior="none"
              allowDecimal={false}
              label={webText('proxyTimeout')}
              min={1}
              max={3600}
              value={s.timeoutSeconds}
              onChange={(v) => set({ timeoutSeconds: v })}
              error={props.errorAt('timeoutSeconds')}
            />
          </Group>
          <Text fz="xs" c="dimmed">
            {webText('passiveHint')}
          </Text>
          <Switch
            label={webText('healthCheck')}
            checked={s.healthCheck.enable}
            onChange={(e) => set({ healthCheck: { ...s.healthCheck, enable: e.currentTarget.checked } })}
            data-testid={`${tid}-health`}
          />
          {s.healthCheck.enable && (
            <Group grow align="flex-start">
              <TextInput
                label={webText('healthPath')}
                value={s.healthCheck.path}
                onChange={(e) => set({ healthCheck: { ...s.healthCheck, path: e.currentTarget.value } })}
                error={props.errorAt('healthCheck.path')}
                styles={mono}
              />
              <NumberInput
                clampBehavior="none"
                allowDecimal={false}
                label={webText('healthInterval')}
                min={1}
                max={3600}
                value={s.healthCheck.intervalSeconds}
                onChange={(v) => set({ healthCheck: { ...s.healthCheck, intervalSeconds: v } })}
                error={props.errorAt('healthCheck.intervalSeconds')}
              />
              <NumberInput
                clampBehavior="none"
                allowDecimal={false}
                label={webText('healthTimeout')}
                min={1}
                max={60}
                value={s.healthCheck.timeoutSeconds}
                onChange={(v) => set({ healthCheck: { ...s.healthCheck, timeoutSeconds: v } })}
                error={props.errorAt('healthCheck.timeoutSeconds')}
              />
            </Group>
          )}
          <Group gap="lg">
            {bool('websocket', webText('websocket'))}
            {bool('useRequestHost', webText('useRequestHost'))}
            {bool('forwardedHeaders', webText('forwardedHeaders'))}
            {bool('skipTlsVerify', webText('skipTlsVerify'))}
          </Group>
          <Group grow align="flex-start">
            <Textarea
              label={webText('requestHeaders')}
              description={webText('headersHint')}
              autosize
              minRows={2}
              maxRows={6}
              value={s.requestHeaders}
              onChange={(e) => set({ requestHeaders: e.currentTarget.value })}
              error={props.errorAt('requestHeaders')}
              styles={mono}
            />
            <Textarea
              label={webText('responseHeaders')}
              description={webText('headersHint')}
              autosize
              minRows={2}
              maxRows={6}
              value={s.responseHeaders}
              onChange={(e) => set({ responseHeaders: e.currentTarget.value })}
              error={props.errorAt('responseHeaders')}
              styles={mono}
            />
          </Group>
        </>
      )}
      {s.type === 'redirect' && (
        <Group grow align="flex-start">
          <Select
            label={webText('redirectCode')}
            data={REDIRECT_CODES.map((c) => String(c))}
            value={String(s.code)}
            allowDeselect={false}
            onChange={(v) => v && set({ code: Number(v) as ServiceForm['code'] })}
            style={{ flexGrow: 0, minWidth: 120 }}
          />
          <TextInput
            label={webText('redirectTarget')}
            description={webText('targetVars')}
            value={s.redirectTarget}
            onChange={(e) => set({ redirectTarget: e.currentTarget.value })}
            error={props.errorAt('target')}
            styles={mono}
            data-testid={`${tid}-redirect-target`}
          />
        </Group>
      )}
      {s.type === 'jump' && (
        <TextInput
          label={webText('jumpTarget')}
          description={webText('targetVars')}
          value={s.jumpTarget}
          onChange={(e) => set({ jumpTarget: e.currentTarget.value })}
          error={props.errorAt('target')}
          styles={mono}
          data-testid={`${tid}-jump-target`}
        />
      )}
      {s.type === 'file' && (
        <>
          <TextInput
            label={webText('root')}
            placeholder="/srv/www"
            value={s.root}
            onChange={(e) => set({ root: e.currentTarget.value })}
            error={props.errorAt('root')}
            styles={mono}
            data-testid={`${tid}-root`}
          />
          <Group grow align="flex-start">
            <Textarea
              label={webText('index')}
              description={webText('indexHint')}
              autosize
              minRows={1}
              maxRows={4}
              value={s.index}
              onChange={(e) => set({ index: e.currentTarget.value })}
              error={props.errorAt('index')}
              styles={mono}
            />
            <Stack justify="center" pt={24}>
              {bool('listing', webText('listing'))}
            </Stack>
          </Group>
        </>
      )}
      {s.type === 'text' && (
        <>
          <Group grow align="flex-start">
            <NumberInput
              clampBehavior="none"
              allowDecimal={false}
              label={webText('textStatus')}
              min={200}
              max={599}
              value={s.status}
              onChange={(v) => set({ status: v })}
              error={props.errorAt('status')}
              style={{ flexGrow: 0, minWidth: 120 }}
              data-testid={`${tid}-status`}
            />
            <TextInput
              label={webText('contentType')}
              value={s.contentType}
              onChange={(e) => set({ contentType: e.currentTarget.value })}
              error={props.errorAt('contentType')}
              styles={mono}
            />
          </Group>
          <Textarea
            label={webText('textBody')}
            description={webText('textVars')}
            autosize
            minRows={3}
            maxRows={12}
            value={s.body}
            onChange={(e) => set({ body: e.currentTarget.value })}
            error={props.errorAt('body')}
            styles={mono}
            data-testid={`${tid}-body`}
          />
        </>
      )}
      {s.type === 'close' && (
        <Text fz="sm" c="dimmed">
          {webText('closeHint')}
        </Text>
      )}
    </Stack>
  );
}

function FilterEditor(props: {
  value: { mode: AccessForm['ipFilter']['mode']; list: string };
  onChange: (v: { mode: AccessForm['ipFilter']['mode']; list: string }) => void;
  label: string;
  hint: string;
  error: string | undefined;
  testId: string;
}) {
  const f = props.value;
  return (
    <Stack gap="xs">
      <SegmentedControl
        data={FILTER_MODES.map((m) => ({ value: m, label: webText(`mode.${m}`) }))}
        value={f.mode}
        onChange={(v) => props.onChange({ ...f, mode: v as typeof f.mode })}
        data-testid={`${props.testId}-mode`}
        w="fit-content"
      />
      {f.mode !== 'off' && (
        <Textarea
          label={props.label}
          description={props.hint}
          autosize
          minRows={2}
          maxRows={8}
          value={f.list}
          onChange={(e) => props.onChange({ ...f, list: e.currentTarget.value })}
          error={props.error}
          styles={mono}
          data-testid={`${props.testId}-list`}
        />
      )}
    </Stack>
  );
}

const onBadge = (on: boolean) =>
  on ? (
    <Badge size="xs" variant="light" color="green" ml={6} tt="none">
      {webText('on')}
    </Badge>
  ) : null;

/** Basic auth, IP and UA filters, cache, CORS and robots.txt, each in its own fold. */
export function AccessEditor(props: {
  value: AccessForm;
  onChange: (v: AccessForm) => void;
  errorAt: ErrorAt;
  open: string[];
  onOpen: (v: string[]) => void;
  testId: string;
}) {
  const a = props.value;
  const tid = props.testId;
  const set = <K extends keyof AccessForm>(k: K, v: AccessForm[K]) => props.onChange({ ...a, [k]: v });
  const users = a.basicAuth.users;
  const setUsers = (u: AccessForm['basicAuth']['users']) => set('basicAuth', { ...a.basicAuth, users: u });

  return (
    <Accordion multiple value={props.open} onChange={props.onOpen} variant="contained" data-testid={tid}>
      <Accordion.Item value="basicAuth">
        <Accordion.Control data-testid={`${tid}-basicAuth`}>
          {webText('basicAuth')}
          {onBadge(a.basicAuth.enable)}
        </Accordion.Control>
        <Accordion.Panel>
          <Stack gap="xs">
            <Group align="flex-end">
              <Switch
                label={webText('enable')}
                checked={a.basicAuth.enable}
                onChange={(e) => set('basicAuth', { ...a.basicAuth, enable: e.currentTarget.checked })}
                data-testid={`${tid}-auth-enable`}
              />
              <TextInput
                label={webText('realm')}
                value={a.basicAuth.realm}
                onChange={(e) => set('basicAuth', { ...a.basicAuth, realm: e.currentTarget.value })}
                error={props.errorAt('basicAuth.realm')}
              />
            </Group>
            {users.map((u, i) => (
              <Group key={i} align="flex-start" wrap="nowrap">
                <TextInput
                  label={i === 0 ? webText('userName') : undefined}
                  value={u.user}
                  onChange={(e) => {
                    const v = e.currentTarget.value;
                    setUsers(users.map((x, j) => (j === i ? { ...x, user: v } : x)));
                  }}
                  error={props.errorAt(`basicAuth.users.${i}.user`)}
                  autoComplete="off"
                  data-testid={`${tid}-user`}
                  style={{ flex: 1 }}
                />
                <PasswordInput
                  label={i === 0 ? webText('password') : undefined}
                  placeholder={keepsPassword(u) ? webText('passwordKept') : webText('passwordNew')}
                  value={u.password}
                  onChange={(e) => {
                    const v = e.currentTarget.value;
                    setUsers(users.map((x, j) => (j === i ? { ...x, password: v } : x)));
                  }}
                  error={props.errorAt(`basicAuth.users.${i}.password`)}
                  autoComplete="new-password"
                  data-testid={`${tid}-password`}
                  style={{ flex: 1 }}
                />
                <ActionIcon
                  variant="subtle"
                  color="red"
                  mt={i === 0 ? 26 : 4}
                  onClick={() => setUsers(users.filter((_, j) => j !== i))}
                  aria-label={webText('remove')}
                >
                  ✕
                </ActionIcon>
              </Group>
            ))}
            <Button
              variant="light"
              size="xs"
              w="fit-content"
              onClick={() => setUsers([...users, { user: '', password: '', stored: false, storedName: '' }])}
              data-testid={`${tid}-user-add`}
            >
              {webText('userAdd')}
            </Button>
          </Stack>
        </Accordion.Panel>
      </Accordion.Item>

      <Accordion.Item value="ipFilter">
        <Accordion.Control data-testid={`${tid}-ipFilter`}>
          {webText('ipFilter')}
          {a.ipFilter.mode !== 'off' && (
            <Badge size="xs" variant="light" ml={6} tt="none">
              {webText(`mode.${a.ipFilter.mode}`)}
            </Badge>
          )}
        </Accordion.Control>
        <Accordion.Panel>
          <FilterEditor
            value={a.ipFilter}
            onChange={(v) => set('ipFilter', v)}
            label={webText('ipList')}
            hint={webText('ipListHint')}
            error={props.errorAt('ipFilter')}
            testId={`${tid}-ip`}
          />
        </Accordion.Panel>
      </Accordion.Item>

      <Accordion.Item value="uaFilter">
        <Accordion.Control data-testid={`${tid}-uaFilter`}>
          {webText('uaFilter')}
          {a.uaFilter.mode !== 'off' && (
            <Badge size="xs" variant="light" ml={6} tt="none">
              {webText(`mode.${a.uaFilter.mode}`)}
            </Badge>
          )}
        </Accordion.Control>
        <Accordion.Panel>
          <FilterEditor
            value={a.uaFilter}
            onChange={(v) => set('uaFilter', v)}
            label={webText('uaList')}
            hint={webText('uaListHint')}
            error={props.errorAt('uaFilter')}
            testId={`${tid}-ua`}
          />
        </Accordion.Panel>
      </Accordion.Item>

      <Accordion.Item value="cache">
        <Accordion.Control data-testid={`${tid}-cache`}>
          {webText('cache')}
          {onBadge(a.cache.enable)}
        </Accordion.Control>
        <Accordion.Panel>
          <Stack gap="xs">
            <Switch
              label={webText('enable')}
              description={webText('cacheHint')}
              checked={a.cache.enable}
              onChange={(e) => set('cache', { ...a.cache, enable: e.currentTarget.checked })}
            />
            {a.cache.enable && (
              <Group grow align="flex-start">
                <NumberInput
                  clampBehavior="none"
                  allowDecimal={false}
                  thousandSeparator=","
                  label={webText('cacheMax')}
                  value={a.cache.maxBytes}
                  onChange={(v) => set('cache', { ...a.cache, maxBytes: v })}
                  error={props.errorAt('cache.maxBytes')}
                />
                <NumberInput
                  clampBehavior="none"
                  allowDecimal={false}
                  thousandSeparator=","
                  label={webText('cacheEntryMax')}
                  value={a.cache.maxEntryBytes}
                  onChange={(v) => set('cache', { ...a.cache, maxEntryBytes: v })}
                  error={props.errorAt('cache.maxEntryBytes')}
                />
                <NumberInput
                  clampBehavior="none"
                  allowDecimal={false}
                  label={webText('cacheTtl')}
                  value={a.cache.ttlSeconds}
                  onChange={(v) => set('cache', { ...a.cache, ttlSeconds: v })}
                  error={props.errorAt('cache.ttlSeconds')}
                />
              </Group>
            )}
          </Stack>
        </Accordion.Panel>
      </Accordion.Item>

      <Accordion.Item value="cors">
        <Accordion.Control data-testid={`${tid}-cors`}>
          {webText('cors')}
          {onBadge(a.cors.enable)}
        </Accordion.Control>
        <Accordion.Panel>
          <Stack gap="xs">
            <Group>
              <Switch
                label={webText('enable')}
                checked={a.cors.enable}
                onChange={(e) => set('cors', { ...a.cors, enable: e.currentTarget.checked })}
                data-testid={`${tid}-cors-enable`}
              />
              {a.cors.enable && (
                <Switch
                  label={webText('corsCredentials')}
                  checked={a.cors.credentials}
                  onChange={(e) => set('cors', { ...a.cors, credentials: e.currentTarget.checked })}
                />
              )}
            </Group>
            {a.cors.enable && (
              <>
                <Textarea
                  label={webText('corsOrigins')}
                  description={webText('corsOriginsHint')}
                  autosize
                  minRows={1}
                  maxRows={6}
                  value={a.cors.origins}
                  onChange={(e) => set('cors', { ...a.cors, origins: e.currentTarget.value })}
                  error={props.errorAt('cors.origins')}
                  styles={mono}
                />
                <Group grow align="flex-start">
                  <TextInput
                    label={webText('corsMethods')}
                    description={webText('corsMethodsHint', { methods: DEFAULT_CORS_METHODS.join(', ') })}
                    value={a.cors.methods}
                    onChange={(e) => set('cors', { ...a.cors, methods: e.currentTarget.value })}
                    error={props.errorAt('cors.methods')}
                    styles={mono}
                    data-testid={`${tid}-cors-methods`}
                  />
                  <TextInput
                    label={webText('corsHeaders')}
                    value={a.cors.headers}
                    onChange={(e) => set('cors', { ...a.cors, headers: e.currentTarget.value })}
                    error={props.errorAt('cors.headers')}
                    styles={mono}
                  />
                  <NumberInput
                    clampBehavior="none"
                    allowDecimal={false}
                    label={webText('corsMaxAge')}
                    min={0}
                    max={86400}
                    value={a.cors.maxAgeSeconds}
                    onChange={(v) => set('cors', { ...a.cors, maxAgeSeconds: v })}
                    error={props.errorAt('cors.maxAgeSeconds')}
                    style={{ flexGrow: 0, minWidth: 150 }}
                  />
                </Group>
              </>
            )}
          </Stack>
        </Accordion.Panel>
      </Accordion.Item>

      <Accordion.Item value="robots">
        <Accordion.Control data-testid={`${tid}-robots`}>
          {webText('robots')}
          {onBadge(a.robots.enable)}
        </Accordion.Control>
        <Accordion.Panel>
          <Stack gap="xs">
            <Switch label={webText('enable')} checked={a.robots.enable} onChange={(e) => set('robots', { ...a.robots, enable: e.currentTarget.checked })} />
            {a.robots.enable && (
              <Textarea
                label={webText('robotsText')}
                autosize
                minRows={3}
                maxRows={12}
                value={a.robots.text}
                onChange={(e) => set('robots', { ...a.robots, text: e.currentTarget.value })}
                error={props.errorAt('robots.text')}
                styles={mono}
              />
            )}
          </Stack>
        </Accordion.Panel>
      </Accordion.Item>
    </Accordion>
  );
}

export const CLIENT_IP_DEFAULT = DEFAULT_CLIENT_IP_HEADERS.join(', ');

/** One certificate: PEM text (pasted or read from a local file) or paths on the server. */
export function CertEditor(props: { value: CertForm; onChange: (v: CertForm) => void; onRemove: () => void; index: number; errorAt: ErrorAt }) {
  const c = props.value;
  const set = (patch: Partial<CertForm>) => props.onChange({ ...c, ...patch });
  const pem = c.source === 'pem';
  const readInto = (field: 'cert' | 'key') => (file: File | null) => {
    if (!file) return;
    void file.text().then((t) => set({ [field]: t }));
  };
  const tid = `web-cert-${props.index}`;
  return (
    <Stack gap="xs" p="sm" style={{ border: '1px solid var(--mantine-color-gray-3)', borderRadius: 6 }} data-testid={tid}>
      <Group justify="space-between">
        <Text fw={500} fz="sm">
          {webText('certN', { n: props.index + 1 })}
        </Text>
        <Group gap="xs">
          <SegmentedControl
            size="xs"
            data={(['pem', 'file'] as const).map((v) => ({ value: v, label: webText(`certSource.${v}`) }))}
            value={c.source}
            onChange={(v) => set({ source: v as CertForm['source'] })}
          />
          <Button size="xs" variant="subtle" color="red" onClick={props.onRemove}>
            {webText('remove')}
          </Button>
        </Group>
      </Group>
      {(['cert', 'key'] as const).map((field) => {
        const label = pem ? (field === 'cert' ? webText('certPem') : webText('keyPem')) : field === 'cert' ? webText('certPath') : webText('keyPath');
        return pem ? (
          <Stack key={field} gap={4}>
            <Textarea
              label={
                <Group gap="xs" component="span">
                  <span>{label}</span>
                  <FileButton onChange={readInto(field)} accept=".pem,.crt,.cer,.key,text/plain">
                    {(p) => (
                      <Button {...p} size="compact-xs" variant="light">
                        {webText('certUpload')}
                      </Button>
                    )}
                  </FileButton>
                </Group>
              }
              placeholder={field === 'cert' ? '-----BEGIN CERTIFICATE-----' : '-----BEGIN PRIVATE KEY-----'}
              autosize
              minRows={3}
              maxRows={8}
              value={c[field]}
              onChange={(e) => set({ [field]: e.currentTarget.value })}
              error={props.errorAt(field)}
              styles={mono}
              data-testid={`${tid}-${field}`}
            />
          </Stack>
        ) : (
          <TextInput
            key={field}
            label={label}
            placeholder={field === 'cert' ? '/etc/ssl/certs/site.pem' : '/etc/ssl/private/site.key'}
            value={c[field]}
            onChange={(e) => set({ [field]: e.currentTarget.value })}
            error={props.errorAt(field)}
            styles={mono}
            data-testid={`${tid}-${field}`}
          />
        );
      })}
      <Textarea
        label={webText('certDomains')}
        description={webText('certDomainsHint')}
        autosize
        minRows={1}
        maxRows={6}
        value={c.domains}
        onChange={(e) => set({ domains: e.currentTarget.value })}
        error={props.errorAt('domains')}
        styles={mono}
      />
    </Stack>
  );
}
