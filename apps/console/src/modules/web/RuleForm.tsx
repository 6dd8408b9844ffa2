/** Add/edit a web rule: listener, HTTPS certificates, default service, sub rules (own dialog), access settings. */
import {
  ActionIcon,
  Alert,
  Badge,
  Button,
  Group,
  Modal,
  NumberInput,
  SegmentedControl,
  Select,
  Stack,
  Switch,
  Table,
  Tabs,
  Text,
  TextInput,
  Textarea,
} from '@mantine/core';
import { useMediaQuery } from '@mantine/hooks';
import { webRoutes, type WebRule } from '@lucky/contracts';
import { useMemo, useRef, useState } from 'react';
import { lang } from '../../i18n';
import { AccessEditor, CertEditor, CLIENT_IP_DEFAULT, mono, ServiceEditor } from './editors';
import {
  accessSectionOf,
  checkRule,
  checkSubRule,
  emptyCert,
  emptyRule,
  emptySubRule,
  errorFor,
  formToRule,
  keepsPassword,
  missingPassword,
  ruleToForm,
  tabOf,
  TLS_VERSIONS,
  type Problem,
  type RuleForm,
  type RuleTab,
  type SubRuleForm,
} from './form';
import { webText } from './i18n';
import { webKeys } from './queries';
import { useRuleSave } from '../../shell/useRuleActions';
import { problemTabProps, useScrollToProblem } from '../../shell/RuleScreen';

export interface Editing {
  key: string | null;
  /** The rule as stored (passwords blank), null for a new one. */
  saved: WebRule | null;
}

/** A problem of the form, or a new user's missing password (the daemon would refuse it). */
function passwordProblem(users: RuleForm['access']['basicAuth']['users'], prefix: string): Problem | null {
  const user = missingPassword(users);
  if (user === null) return null;
  const i = users.findIndex((u) => u.user.trim() === user && !keepsPassword(u) && u.password === '');
  const message = webText('err.password', { user });
  return { summary: message, path: `${prefix}basicAuth.users.${i}.password`, message };
}

export function ruleProblem(f: RuleForm): Problem | null {
  return (
    checkRule(f, lang, webText) ??
    passwordProblem(f.access.basicAuth.users, '') ??
    f.subRules.reduce<Problem | null>((p, s, i) => p ?? passwordProblem(s.access.basicAuth.users, `subRules.${i}.`), null)
  );
}

export function subRuleProblem(f: SubRuleForm): Problem | null {
  return checkSubRule(f, lang, webText) ?? passwordProblem(f.access.basicAuth.users, '');
}

function ProblemAlert({ problem, testId }: { problem: Problem; testId: string }) {
  return (
    <Alert color="red" p="xs" data-testid={testId}>
      <Text fz="sm" fw={500} data-testid={`${testId}-message`}>
        {problem.message}
      </Text>
      {problem.summary !== problem.message && (
        <Text fz="xs" c="dimmed" data-testid={`${testId}-summary`}>
          {problem.summary}
        </Text>
      )}
    </Alert>
  );
}

export function RuleFormModal(props: { editing: Editing | null; onClose: () => void }) {
  const narrow = useMediaQuery('(max-width: 768px)');
  return (
    <Modal
      opened={props.editing !== null}
      onClose={props.onClose}
      title={props.editing?.key ? webText('edit') : webText('add')}
      size={1000}
      fullScreen={narrow}
      closeOnClickOutside={false}
      data-testid="web-form"
    >
      {props.editing && <RuleFormBody editing={props.editing} onClose={props.onClose} />}
    </Modal>
  );
}

function RuleFormBody({ editing, onClose }: { editing: Editing; onClose: () => void }) {
  const [form, setForm] = useState<RuleForm>(() => (editing.saved ? ruleToForm(editing.saved) : emptyRule()));
  const [tab, setTab] = useState<RuleTab>('basic');
  const [attempt, setAttempt] = useState(0);
  const [serverError, setServerError] = useState<string | null>(null);
  const [open, setOpen] = useState<string[]>([]);
  const [subEditing, setSubEditing] = useState<{ index: number | null; form: SubRuleForm } | null>(null);
  const rootRef = useRef<HTMLDivElement>(null);

  const edit = (fn: (d: RuleForm) => void) =>
    setForm((prev) => {
      const d = structuredClone(prev);
      fn(d);
      return d;
    });

  // Checked on save; after a refused save, again on every change so a fixed field stops showing red.
  const problem = useMemo(() => (attempt > 0 ? ruleProblem(form) : null), [attempt, form]);
  const err = (field: string) => errorFor(problem, field);

  useScrollToProblem(rootRef, attempt, [tab]);

  const save = useRuleSave<WebRule>({
    routes: webRoutes,
    ruleKey: editing.key,
    invalidate: webKeys.all,
    savedText: webText('saved'),
    onSaved: onClose,
    onError: setServerError,
  });

  const submit = () => {
    setServerError(null);
    const p = ruleProblem(form);
    setAttempt((n) => n + 1);
    if (p) {
      setTab(tabOf(p.path));
      const section = accessSectionOf(p.path);
      if (section && !p.path.startsWith('subRules') && !open.includes(section)) setOpen([...open, section]);
      return;
    }
    save.mutate(formToRule(form));
  };

  const https = form.protocol === 'https';
  const tabError = (t: RuleTab) => (problem && tabOf(problem.path) === t ? 'red' : undefined);
  /** A tab holding the problem shows it in red even when it is not the one open. */
  const tabProps = (t: RuleTab) => problemTabProps(tabError(t) !== undefined);
  const subError = (i: number) => (problem?.path.startsWith(`subRules.${i}.`) ? problem.message : undefined);

  return (
    <>
    <form
      onSubmit={(e) => {
        e.preventDefault();
        submit();
      }}
      noValidate
    >
      <Stack gap="md" ref={rootRef}>
        <Tabs value={tab} onChange={(v) => v && setTab(v as RuleTab)}>
          <Tabs.List mb="sm">
            <Tabs.Tab value="basic" {...tabProps('basic')} data-testid="web-tab-basic">
              {webText('tabBasic')}
            </Tabs.Tab>
            <Tabs.Tab value="https" {...tabProps('https')} data-testid="web-tab-https">
              {webText('tabHttps')}
            </Tabs.Tab>
            <Tabs.Tab value="service" {...tabProps('service')} data-testid="web-tab-service">
              {webText('tabService')}
            </Tabs.Tab>
            <Tabs.Tab value="subrules" {...tabProps('subrules')} data-testid="web-tab-subrules">
              {webText('tabSubRules', { n: form.subRules.length })}
            </Tabs.Tab>
            <Tabs.Tab value="access" {...tabProps('access')} data-testid="web-tab-access">
              {webText('tabAccess')}
            </Tabs.Tab>
          </Tabs.List>

          <Tabs.Panel value="basic">
            <Stack gap="xs">
              <Group grow align="flex-start">
                <TextInput
                  label={webText('name')}
                  value={form.name}
                  onChange={(e) => {
                    const v = e.currentTarget.value;
                    edit((d) => void (d.name = v));
                  }}
                  error={err('name')}
                  data-testid="web-name"
                />
                <Switch
                  mt={30}
                  label={webText('enable')}
                  checked={form.enable}
                  onChange={(e) => {
                    const v = e.currentTarget.checked;
                    edit((d) => void (d.enable = v));
                  }}
                  data-testid="web-enable"
                />
              </Group>
              <Group align="flex-end" gap="md">
                <Stack gap={4}>
                  <Text fz="sm" fw={500}>
                    {webText('network')}
                  </Text>
                  <SegmentedControl
                    data={['tcp4', 'tcp6']}
                    value={form.network}
                    onChange={(v) => edit((d) => void (d.network = v as RuleForm['network']))}
                    data-testid="web-network"
                  />
                </Stack>
                <Stack gap={4}>
                  <Text fz="sm" fw={500}>
                    {webText('protocol')}
                  </Text>
                  <SegmentedControl
                    data={[
                      { value: 'http', label: 'HTTP' },
                      { value: 'https', label: 'HTTPS' },
                    ]}
                    value={form.protocol}
                    onChange={(v) => edit((d) => void (d.protocol = v as RuleForm['protocol']))}
                    data-testid="web-protocol"
                  />
                </Stack>
              </Group>
              <Group grow align="flex-start">
                <TextInput
                  label={webText('address')}
                  description={webText('addressHint')}
                  placeholder={form.network === 'tcp6' ? '::' : '0.0.0.0'}
                  value={form.address}
                  onChange={(e) => {
                    const v = e.currentTarget.value;
                    edit((d) => void (d.address = v));
                  }}
                  error={err('address')}
                  styles={mono}
                  data-testid="web-address"
                />
                <NumberInput
                  clampBehavior="none"
                  allowDecimal={false}
                  label={webText('port')}
                  description="1-65535"
                  min={1}
                  max={65535}
                  value={form.port}
                  onChange={(v) => edit((d) => void (d.port = v))}
                  error={err('port')}
                  data-testid="web-port"
                />
              </Group>
              <Switch
                label={webText('firewallAllow')}
                description={webText('firewallAllowHint')}
                checked={form.firewallAllow}
                onChange={(e) => {
                  const v = e.currentTarget.checked;
                  edit((d) => void (d.firewallAllow = v));
                }}
                data-testid="web-firewall"
              />
              <Textarea
                label={webText('note')}
                autosize
                minRows={1}
                maxRows={4}
                value={form.note}
                onChange={(e) => {
                  const v = e.currentTarget.value;
                  edit((d) => void (d.note = v));
                }}
                error={err('note')}
              />
            </Stack>
          </Tabs.Panel>

          <Tabs.Panel value="https">
            <Stack gap="xs">
              {!https && (
                <Alert color="blue" p="xs">
                  {webText('httpsOnly')}
                </Alert>
              )}
              <Select
                label={webText('minTls')}
                data={TLS_VERSIONS.map((v) => ({ value: v, label: `TLS ${v}` }))}
                value={form.minTls}
                allowDeselect={false}
                onChange={(v) => v && edit((d) => void (d.minTls = v as RuleForm['minTls']))}
                maw={240}
                data-testid="web-mintls"
              />
              <Text fz="sm" fw={500}>
                {webText('certs')}
              </Text>
              <Text fz="xs" c="dimmed" mt={-6}>
                {webText('certsHint')}
              </Text>
              {form.certs.map((c, i) => (
                <CertEditor
                  key={i}
                  index={i}
                  value={c}
                  onChange={(v) => edit((d) => void (d.certs[i] = v))}
                  onRemove={() => edit((d) => void d.certs.splice(i, 1))}
                  errorAt={(f) => err(`certs.${i}.${f}`)}
                />
              ))}
              <Button variant="light" w="fit-content" onClick={() => edit((d) => void d.certs.push(emptyCert()))} data-testid="web-cert-add">
                {webText('certAdd')}
              </Button>
            </Stack>
          </Tabs.Panel>

          <Tabs.Panel value="service">
            <Stack gap="xs">
              <Text fz="xs" c="dimmed">
                {webText('defaultServiceHint')}
              </Text>
              <ServiceEditor
                value={form.defaultService}
                onChange={(s) => edit((d) => void (d.defaultService = s))}
                errorAt={(f) => err(`defaultService.${f}`)}
                testId="web-default"
              />
            </Stack>
          </Tabs.Panel>

          <Tabs.Panel value="subrules">
            <Stack gap="xs">
              {form.subRules.length === 0 ? (
                <Text c="dimmed" fz="sm" data-testid="web-sub-empty">
                  {webText('subEmpty')}
                </Text>
              ) : (
                <Table striped verticalSpacing={6} data-testid="web-sub-table">
                  <Table.Thead>
                    <Table.Tr>
                      <Table.Th>{webText('colName')}</Table.Th>
                      <Table.Th>{webText('subColDomains')}</Table.Th>
                      <Table.Th>{webText('subColService')}</Table.Th>
                      <Table.Th>{webText('colEnable')}</Table.Th>
                      <Table.Th />
                    </Table.Tr>
                  </Table.Thead>
                  <Table.Tbody>
                    {form.subRules.map((s, i) => (
                      <Table.Tr key={i} data-testid="web-sub-row">
                        <Table.Td>
                          {s.name || (
                            <Text span c="dimmed" fz="sm">
                              {webText('subNoName')}
                            </Text>
                          )}
                          {subError(i) && (
                            <Text fz="xs" c="red">
                              {subError(i)}
                            </Text>
                          )}
                        </Table.Td>
                        <Table.Td style={{ fontFamily: 'monospace', fontSize: 12 }}>{s.domains.split('\n').filter(Boolean).join(', ')}</Table.Td>
                        <Table.Td>
                          <Badge variant="light" tt="none">
                            {webText(`type.${s.service.type}`)}
                          </Badge>
                        </Table.Td>
                        <Table.Td>
                          <Switch
                            checked={s.enable}
                            onChange={(e) => {
                              const v = e.currentTarget.checked;
                              edit((d) => void (d.subRules[i]!.enable = v));
                            }}
                            aria-label={webText('colEnable')}
                          />
                        </Table.Td>
                        <Table.Td>
                          <Group gap={6} wrap="nowrap" justify="flex-end">
                            <Button size="xs" variant="default" onClick={() => setSubEditing({ index: i, form: structuredClone(s) })} data-testid="web-sub-edit">
                              {webText('editShort')}
                            </Button>
                            <ActionIcon
                              variant="subtle"
                              color="red"
                              onClick={() => edit((d) => void d.subRules.splice(i, 1))}
                              aria-label={webText('delete')}
                              data-testid="web-sub-delete"
                            >
                              ✕
                            </ActionIcon>
                          </Group>
                        </Table.Td>
                      </Table.Tr>
                    ))}
                  </Table.Tbody>
                </Table>
              )}
              <Group justify="space-between">
                <Button variant="light" onClick={() => setSubEditing({ index: null, form: emptySubRule() })} data-testid="web-sub-add">
                  {webText('subAdd')}
                </Button>
                {editing.key && (
                  <Text fz="xs" c="dimmed">
                    {webText('subUnsaved')}
                  </Text>
                )}
              </Group>
            </Stack>
          </Tabs.Panel>

          <Tabs.Panel value="access">
            <Stack gap="sm">
              <Text fz="xs" c="dimmed">
                {webText('accessRuleHint')}
              </Text>
              <AccessEditor
                value={form.access}
                onChange={(a) => edit((d) => void (d.access = a))}
                errorAt={err}
                open={open}
                onOpen={setOpen}
                testId="web-access"
              />
              <Text fz="sm" fw={500} mt="xs">
                {webText('sectionClientIp')}
              </Text>
              <Group grow align="flex-start">
                <Textarea
                  label={webText('trustedProxies')}
                  description={webText('trustedProxiesHint')}
                  autosize
                  minRows={2}
                  maxRows={6}
                  value={form.trustedProxies}
                  onChange={(e) => {
                    const v = e.currentTarget.value;
                    edit((d) => void (d.trustedProxies = v));
                  }}
                  error={err('trustedProxies')}
                  styles={mono}
                  data-testid="web-trusted"
                />
                <TextInput
                  label={webText('clientIpHeaders')}
                  description={webText('clientIpHeadersHint', { headers: CLIENT_IP_DEFAULT })}
                  value={form.clientIpHeaders}
                  onChange={(e) => {
                    const v = e.currentTarget.value;
                    edit((d) => void (d.clientIpHeaders = v));
                  }}
                  error={err('clientIpHeaders')}
                  styles={mono}
                />
              </Group>
              <NumberInput
                clampBehavior="none"
                allowDecimal={false}
                label={webText('accessLogCapacity')}
                description={webText('accessLogCapacityHint')}
                min={0}
                max={102400}
                value={form.accessLogCapacity}
                onChange={(v) => edit((d) => void (d.accessLogCapacity = v))}
                error={err('accessLog.capacity')}
                maw={320}
                data-testid="web-accesslog-capacity"
              />
            </Stack>
          </Tabs.Panel>
        </Tabs>

        {problem && <ProblemAlert problem={problem} testId="web-form-error" />}
        {serverError && (
          <Alert color="red" p="xs" data-testid="web-form-server-error">
            {serverError}
          </Alert>
        )}
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            {webText('cancel')}
          </Button>
          <Button type="submit" loading={save.isPending} data-testid="web-save">
            {webText('save')}
          </Button>
        </Group>
      </Stack>
    </form>

      <SubRuleModal
        editing={subEditing}
        onClose={() => setSubEditing(null)}
        onDone={(s) => {
          const at = subEditing?.index ?? null;
          edit((d) => {
            if (at === null) d.subRules.push(s);
            else d.subRules[at] = s;
          });
          setSubEditing(null);
        }}
      />
    </>
  );
}

function SubRuleModal(props: { editing: { index: number | null; form: SubRuleForm } | null; onClose: () => void; onDone: (s: SubRuleForm) => void }) {
  const narrow = useMediaQuery('(max-width: 768px)');
  return (
    <Modal
      opened={props.editing !== null}
      onClose={props.onClose}
      title={props.editing?.index === null ? webText('subAdd') : webText('subEdit')}
      size={900}
      fullScreen={narrow}
      closeOnClickOutside={false}
      data-testid="web-sub-form"
    >
      {props.editing && <SubRuleBody initial={props.editing.form} onClose={props.onClose} onDone={props.onDone} />}
    </Modal>
  );
}

function SubRuleBody(props: { initial: SubRuleForm; onClose: () => void; onDone: (s: SubRuleForm) => void }) {
  const [form, setForm] = useState<SubRuleForm>(props.initial);
  const [attempt, setAttempt] = useState(0);
  const [open, setOpen] = useState<string[]>([]);
  const problem = useMemo(() => (attempt > 0 ? subRuleProblem(form) : null), [attempt, form]);
  const err = (field: string) => errorFor(problem, field);
  const set = (patch: Partial<SubRuleForm>) => setForm((f) => ({ ...f, ...patch }));
  const rootRef = useRef<HTMLDivElement>(null);
  useScrollToProblem(rootRef, attempt);

  // The sub rule's own form is a nested form: its submit must not submit the rule's.
  const done = (e?: React.SyntheticEvent) => {
    e?.preventDefault();
    e?.stopPropagation();
    const p = subRuleProblem(form);
    setAttempt((n) => n + 1);
    if (p) {
      const section = accessSectionOf(p.path);
      if (section && !open.includes(section)) setOpen([...open, section]);
      return;
    }
    props.onDone(form);
  };

  return (
    <Stack gap="sm" ref={rootRef}>
      <Group grow align="flex-start">
        <TextInput label={webText('subName')} value={form.name} onChange={(e) => set({ name: e.currentTarget.value })} error={err('name')} data-testid="web-sub-name" />
        <Switch mt={30} label={webText('enable')} checked={form.enable} onChange={(e) => set({ enable: e.currentTarget.checked })} data-testid="web-sub-enable" />
      </Group>
      <Textarea
        label={webText('subDomains')}
        description={webText('subDomainsHint')}
        // A red placeholder under an error would read like a value.
        placeholder={err('domains') ? undefined : 'www.example.com\n*.example.com'}
        autosize
        minRows={2}
        maxRows={10}
        value={form.domains}
        onChange={(e) => set({ domains: e.currentTarget.value })}
        error={err('domains')}
        styles={mono}
        data-testid="web-sub-domains"
      />
      <ServiceEditor value={form.service} onChange={(s) => set({ service: s })} errorAt={(f) => err(`service.${f}`)} testId="web-sub-service" />
      <Text fz="sm" fw={500} mt="xs">
        {webText('tabAccess')}
      </Text>
      <Text fz="xs" c="dimmed" mt={-8}>
        {webText('accessSubHint')}
      </Text>
      <AccessEditor value={form.access} onChange={(a) => set({ access: a })} errorAt={err} open={open} onOpen={setOpen} testId="web-sub-access" />
      {problem && <ProblemAlert problem={problem} testId="web-sub-error" />}
      <Group justify="flex-end">
        <Button variant="default" onClick={props.onClose}>
          {webText('cancel')}
        </Button>
        <Button onClick={done} data-testid="web-sub-done">
          {webText('ok')}
        </Button>
      </Group>
    </Stack>
  );
}
