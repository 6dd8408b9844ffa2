/** Add/edit a port forwarding rule: types, listener, targets, limits, IP filter, TLS, PROXY protocol. */
import {
  Alert,
  Button,
  Checkbox,
  FileButton,
  Input,
  Group,
  List,
  Modal,
  NumberInput,
  SegmentedControl,
  Stack,
  Switch,
  Tabs,
  Text,
  TextInput,
  Textarea,
} from '@mantine/core';
import { useMediaQuery } from '@mantine/hooks';
import { portforwardRoutes, type PortforwardRule } from '@lucky/contracts';
import { useQuery } from '@tanstack/react-query';
import { useMemo, useRef, useState, type ReactNode } from 'react';
import { lang } from '../../i18n';
import {
  checkRule,
  countItems,
  defaultLimit,
  emptyForm,
  errorAt,
  FILTER_MODES,
  FORWARD_TYPES,
  formToRule,
  LIMIT_FIELDS,
  portFeedback,
  PROXY_PROTOCOLS,
  tabOf,
  targetPortFeedback,
  toForm,
  type PortFeedback,
  type RuleForm,
  type RuleTab,
} from './form';
import { pfText } from './i18n';
import { pfConfigureQuery, pfKeys } from './queries';
import { useRuleSave } from '../../shell/useRuleActions';
import { problemTabProps, useScrollToProblem } from '../../shell/RuleScreen';

export interface Editing {
  key: string | null;
  /** The rule as stored, null for a new one. */
  saved: PortforwardRule | null;
}

const mono = { input: { fontFamily: 'monospace' } } as const;
/** Hints under the inputs, so side-by-side fields line up whatever the hint's length. */
const BELOW: ('label' | 'input' | 'description' | 'error')[] = ['label', 'input', 'error', 'description'];

export function RuleFormModal(props: { editing: Editing | null; onClose: () => void }) {
  const narrow = useMediaQuery('(max-width: 768px)');
  return (
    <Modal
      opened={props.editing !== null}
      onClose={props.onClose}
      title={props.editing?.key ? pfText('edit') : pfText('add')}
      size={860}
      fullScreen={narrow}
      closeOnClickOutside={false}
      data-testid="pf-form"
    >
      {props.editing && <RuleFormBody editing={props.editing} onClose={props.onClose} />}
    </Modal>
  );
}

/** The count of ports under a port field, green when it parses, red with the reason when not. */
function Feedback({ fb, testId }: { fb: PortFeedback; testId: string }) {
  if (!fb) return null;
  return (
    <Text fz="xs" c={fb.ok ? 'teal' : 'red'} data-testid={testId} data-ok={fb.ok}>
      {fb.ok ? '✓ ' : '✗ '}
      {fb.text}
    </Text>
  );
}

function RuleFormBody({ editing, onClose }: { editing: Editing; onClose: () => void }) {
  const [form, setForm] = useState<RuleForm>(() => (editing.saved ? toForm(editing.saved) : emptyForm()));
  const [tab, setTab] = useState<RuleTab>('basic');
  const [attempt, setAttempt] = useState(0);
  const [serverError, setServerError] = useState<string | null>(null);
  const configure = useQuery(pfConfigureQuery());
  const rootRef = useRef<HTMLDivElement>(null);

  const set = <K extends keyof RuleForm>(k: K, v: RuleForm[K]) => setForm((f) => ({ ...f, [k]: v }));
  const setTls = (patch: Partial<RuleForm['tls']>) => setForm((f) => ({ ...f, tls: { ...f.tls, ...patch } }));

  // Checked on save; after a refused save, again on every change so a fixed field stops showing red.
  const problems = useMemo(() => (attempt > 0 ? checkRule(form, lang, pfText) : []), [attempt, form]);
  const err = (field: string) => errorAt(problems, field);
  // A red placeholder under an error would read like a value.
  const ph = (field: string, text: string) => (err(field) ? undefined : text);

  useScrollToProblem(rootRef, attempt, [tab]);

  const save = useRuleSave<PortforwardRule>({
    routes: portforwardRoutes,
    ruleKey: editing.key,
    invalidate: pfKeys.all,
    savedText: pfText('saved'),
    onSaved: onClose,
    onError: setServerError,
  });

  const submit = () => {
    setServerError(null);
    const found = checkRule(form, lang, pfText);
    setAttempt((n) => n + 1);
    if (found.length > 0) {
      setTab(tabOf(found[0]!.field));
      return;
    }
    save.mutate(formToRule(form));
  };

  const tabHas = (t: RuleTab) => problems.some((p) => tabOf(p.field) === t);
  const tabProps = (t: RuleTab) => problemTabProps(tabHas(t));
  const listenFb = portFeedback(form.listenPorts, lang, pfText);
  const targetFb = targetPortFeedback(form.listenPorts, form.targetPorts, lang, pfText);
  const hasTcp = form.types.some((t) => t.startsWith('tcp'));
  const hasUdp = form.types.some((t) => t.startsWith('udp'));
  const readInto = (field: 'cert' | 'key') => (file: File | null) => {
    if (file) void file.text().then((text) => setTls({ [field]: text }));
  };

  return (
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
            <Tabs.Tab value="basic" {...tabProps('basic')} data-testid="pf-tab-basic">
              {pfText('tabBasic')}
            </Tabs.Tab>
            <Tabs.Tab value="limits" {...tabProps('limits')} data-testid="pf-tab-limits">
              {pfText('tabLimits')}
            </Tabs.Tab>
            <Tabs.Tab value="filter" {...tabProps('filter')} data-testid="pf-tab-filter">
              {pfText('tabFilter')}
            </Tabs.Tab>
            <Tabs.Tab value="tls" {...tabProps('tls')} data-testid="pf-tab-tls">
              {pfText('tabTls')}
            </Tabs.Tab>
          </Tabs.List>

          <Tabs.Panel value="basic">
            <Stack gap="sm">
              <Group grow align="flex-start">
                <TextInput label={pfText('name')} withAsterisk value={form.name} onChange={(e) => set('name', e.currentTarget.value)} error={err('name')} data-testid="pf-name" />
                <TextInput label={pfText('note')} value={form.note} onChange={(e) => set('note', e.currentTarget.value)} error={err('note')} data-testid="pf-note" />
              </Group>
              <Checkbox.Group
                label={pfText('types')}
                description={pfText('typesHint')}
                withAsterisk
                value={form.types}
                onChange={(v) => set('types', v as RuleForm['types'])}
                error={err('types')}
                data-testid="pf-types"
              >
                <Group gap="lg" mt={6}>
                  {FORWARD_TYPES.map((ty) => (
                    <Checkbox key={ty} value={ty} label={ty} data-testid={`pf-type-${ty}`} />
                  ))}
                </Group>
              </Checkbox.Group>
              <Group grow align="flex-start">
                <TextInput
                  label={pfText('listenHost')}
                  description={pfText('listenHostHint')}
                  placeholder={ph('listenHost', '0.0.0.0 / ::')}
                  value={form.listenHost}
                  onChange={(e) => set('listenHost', e.currentTarget.value)}
                  error={err('listenHost')}
                  styles={mono}
                  inputWrapperOrder={BELOW}
                  data-testid="pf-listen-host"
                />
                <Stack gap={2}>
                  <TextInput
                    label={pfText('listenPorts')}
                    description={pfText('listenPortsHint')}
                    withAsterisk
                    placeholder={ph('listenPorts', '8080,9000-9010')}
                    value={form.listenPorts}
                    onChange={(e) => set('listenPorts', e.currentTarget.value)}
                    error={err('listenPorts')}
                    styles={mono}
                    inputWrapperOrder={BELOW}
                  data-testid="pf-listen-ports"
                  />
                  {!err('listenPorts') && <Feedback fb={listenFb} testId="pf-listen-ports-count" />}
                </Stack>
              </Group>
              <Group grow align="flex-start">
                <Textarea
                  label={pfText('targets')}
                  description={pfText('targetsHint')}
                  withAsterisk
                  placeholder={ph('targets', '192.168.1.10\nnas.lan')}
                  autosize
                  minRows={2}
                  maxRows={8}
                  value={form.targets}
                  onChange={(e) => set('targets', e.currentTarget.value)}
                  error={err('targets')}
                  styles={mono}
                  inputWrapperOrder={BELOW}
                  data-testid="pf-targets"
                />
                <Stack gap={2}>
                  <TextInput
                    label={pfText('targetPorts')}
                    description={pfText('targetPortsHint')}
                    withAsterisk
                    placeholder={ph('targetPorts', '80')}
                    value={form.targetPorts}
                    onChange={(e) => set('targetPorts', e.currentTarget.value)}
                    error={err('targetPorts') && targetFb && !targetFb.ok ? targetFb.text : err('targetPorts')}
                    styles={mono}
                    inputWrapperOrder={BELOW}
                  data-testid="pf-target-ports"
                  />
                  {!err('targetPorts') && <Feedback fb={targetFb} testId="pf-target-ports-count" />}
                </Stack>
              </Group>
              <Switch label={pfText('enable')} checked={form.enable} onChange={(e) => set('enable', e.currentTarget.checked)} data-testid="pf-enable" />
            </Stack>
          </Tabs.Panel>

          <Tabs.Panel value="limits">
            <Stack gap="sm">
              <Text fz="sm" c="dimmed">
                {pfText('limitsHint')}
              </Text>
              <Group grow align="flex-start">
                {LIMIT_FIELDS.slice(0, 3).map((f) => (
                  <LimitInput key={f} field={f} form={form} setForm={setForm} def={defaultLimit(configure.data?.configure, f)} error={err(`limits.${f}`)} dim={f === 'tcpMaxConnections' ? !hasTcp : !hasUdp} />
                ))}
              </Group>
              <Group grow align="flex-start">
                {LIMIT_FIELDS.slice(3).map((f) => (
                  <LimitInput key={f} field={f} form={form} setForm={setForm} def={defaultLimit(configure.data?.configure, f)} error={err(`limits.${f}`)} dim={f === 'tcpIdleTimeout' ? !hasTcp : !hasUdp} />
                ))}
                <div />
              </Group>
            </Stack>
          </Tabs.Panel>

          <Tabs.Panel value="filter">
            <Stack gap="sm">
              <Input.Wrapper label={pfText('filterMode')}>
                <div>
                  <SegmentedControl
                    data={FILTER_MODES.map((m) => ({ value: m, label: pfText(`filter.${m}`) }))}
                    value={form.filterMode}
                    onChange={(v) => set('filterMode', v as RuleForm['filterMode'])}
                    data-testid="pf-filter-mode"
                  />
                </div>
              </Input.Wrapper>
              <Textarea
                label={pfText('filterList')}
                description={pfText('filterListHint')}
                placeholder={ph('filter.list', '192.168.1.0/24\n2001:db8::/32')}
                autosize
                minRows={4}
                maxRows={14}
                disabled={form.filterMode === 'off'}
                value={form.filterList}
                onChange={(e) => set('filterList', e.currentTarget.value)}
                error={err('filter.list')}
                styles={mono}
                data-testid="pf-filter-list"
              />
              {form.filterMode !== 'off' && (
                <Text fz="xs" c="dimmed">
                  {pfText('filterCount', { n: countItems(form.filterList) })}
                </Text>
              )}
            </Stack>
          </Tabs.Panel>

          <Tabs.Panel value="tls">
            <Stack gap="sm">
              <Switch
                label={pfText('tlsListen')}
                description={pfText('tlsListenHint')}
                checked={form.tls.listen}
                onChange={(e) => setTls({ listen: e.currentTarget.checked })}
                error={err('tls.listen')}
                data-testid="pf-tls-listen"
              />
              {form.tls.listen && (
                <Group grow align="flex-start">
                  {(['cert', 'key'] as const).map((field) => (
                    <Textarea
                      key={field}
                      label={
                        <Group gap="xs" component="span">
                          <span>{field === 'cert' ? pfText('tlsCert') : pfText('tlsKey')}</span>
                          <FileButton onChange={readInto(field)} accept=".pem,.crt,.cer,.key,text/plain">
                            {(p) => (
                              <Button {...p} size="compact-xs" variant="light" data-testid={`pf-tls-${field}-upload`}>
                                {pfText('tlsUpload')}
                              </Button>
                            )}
                          </FileButton>
                        </Group>
                      }
                      placeholder={ph(`tls.${field}`, field === 'cert' ? '-----BEGIN CERTIFICATE-----' : '-----BEGIN PRIVATE KEY-----')}
                      autosize
                      minRows={4}
                      maxRows={10}
                      value={form.tls[field]}
                      onChange={(e) => setTls({ [field]: e.currentTarget.value })}
                      error={err(`tls.${field}`)}
                      styles={{ input: { fontFamily: 'monospace', fontSize: 11 } }}
                      data-testid={`pf-tls-${field}`}
                    />
                  ))}
                </Group>
              )}
              <Switch
                label={pfText('tlsTarget')}
                description={pfText('tlsTargetHint')}
                checked={form.tls.target}
                onChange={(e) => setTls({ target: e.currentTarget.checked })}
                data-testid="pf-tls-target"
              />
              {form.tls.target && (
                <Group grow align="flex-start">
                  <TextInput
                    label={pfText('tlsServerName')}
                    description={pfText('tlsServerNameHint')}
                    value={form.tls.targetServerName}
                    onChange={(e) => setTls({ targetServerName: e.currentTarget.value })}
                    error={err('tls.targetServerName')}
                    styles={mono}
                    data-testid="pf-tls-servername"
                  />
                  <Switch
                    mt={28}
                    label={pfText('tlsInsecure')}
                    checked={form.tls.targetInsecure}
                    onChange={(e) => setTls({ targetInsecure: e.currentTarget.checked })}
                    data-testid="pf-tls-insecure"
                  />
                </Group>
              )}
              <Input.Wrapper label={pfText('proxyProtocol')} description={pfText('proxyProtocolHint')} mt="xs">
                <div>
                  <SegmentedControl
                    mt={4}
                    data={PROXY_PROTOCOLS.map((m) => ({ value: m, label: pfText(`proxy.${m}`) }))}
                    value={form.proxyProtocol}
                    onChange={(v) => set('proxyProtocol', v as RuleForm['proxyProtocol'])}
                    data-testid="pf-proxy"
                  />
                </div>
              </Input.Wrapper>
            </Stack>
          </Tabs.Panel>
        </Tabs>

        {problems.length > 0 && (
          <Alert color="red" p="xs" data-testid="pf-form-error">
            <Text fz="sm" fw={500}>
              {pfText('formErrors')}
            </Text>
            <List size="sm" spacing={2}>
              {problems.map((p) => (
                <List.Item key={p.field} data-testid="pf-form-error-item" data-field={p.field}>
                  {p.message}
                </List.Item>
              ))}
            </List>
          </Alert>
        )}
        {serverError && (
          <Alert color="red" p="xs" data-testid="pf-server-error">
            {serverError}
          </Alert>
        )}
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            {pfText('cancel')}
          </Button>
          <Button type="submit" loading={save.isPending} data-testid="pf-save">
            {pfText('save')}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

function LimitInput(props: {
  field: (typeof LIMIT_FIELDS)[number];
  form: RuleForm;
  setForm: (fn: (f: RuleForm) => RuleForm) => void;
  def: number | undefined;
  error: string | undefined;
  /** Not used by the chosen types: shown lighter. */
  dim: boolean;
}): ReactNode {
  const { field } = props;
  const def = props.def === undefined ? '' : props.def === 0 ? pfText('unlimited') : String(props.def);
  return (
    <NumberInput
      clampBehavior="none"
      allowDecimal={false}
      allowNegative={false}
      label={pfText(`limit.${field}`)}
      placeholder={def ? pfText('defaultIs', { v: def }) : ''}
      value={props.form.limits[field]}
      onChange={(v) => props.setForm((f) => ({ ...f, limits: { ...f.limits, [field]: v } }))}
      error={props.error}
      opacity={props.dim ? 0.6 : 1}
      data-testid={`pf-limit-${field}`}
    />
  );
}
