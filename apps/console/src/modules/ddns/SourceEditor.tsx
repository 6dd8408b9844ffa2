/** Where a task gets its public address from (URL, interface, command, odhcpd), with a test of the source. */
import { Badge, Button, Group, Select, Stack, Text, TextInput } from '@mantine/core';
import { ZDdnsIpTestRequest, coreRoutes, ddnsRoutes, type DdnsProxy } from '@lucky/contracts';
import { useQuery } from '@tanstack/react-query';
import { call } from '../../api';
import { bindFields } from '../../kit/form/bindFields';
import { LinesInput } from '../../kit/fields/LinesInput';
import { HINT_BELOW, mono } from '../../kit/fields/styles';
import { WholeNumberInput } from '../../kit/fields/WholeNumberInput';
import { toNumber } from '../../kit/form/values';
import { lines } from '../../lib/helpers';
import { testTimeout, type SourceForm } from './form';
import { ddnsText } from './i18n';
import { netInterfacesQuery } from './queries';
import { errorText, TestResult, useTestRun } from '../../kit/form/TestRun';

/** The task-level settings an IP test uses (proxy and timeouts apply to URL sources). */
export interface IpTestContext {
  proxy: DdnsProxy;
  httpTimeout: number;
  skipVerify: boolean;
}

type Family = 'ipv4' | 'ipv6';

/** The source's address, and the interface's candidates: worth showing even when the source finds nothing. */
async function testSource(family: Family, s: SourceForm, context: IpTestContext) {
  const body = { family, source: { ...s, urls: lines(s.urls), commandTimeout: toNumber(s.commandTimeout) }, ...context, httpTimeout: testTimeout(context.httpTimeout) };
  const [found, reg] = await Promise.all([
    call(ddnsRoutes.ipTest, { body }, { silent: true }).then(
      (ok) => ({ ip: ok.ip, detail: ok.detail, error: null }),
      (e: unknown) => ({ ip: '', detail: '', error: errorText(e) }),
    ),
    s.type === 'interface' && s.interface
      ? call(coreRoutes.ipRegTest, { query: { iptype: family === 'ipv4' ? 'IPv4' : 'IPv6', netinterface: s.interface, ipreg: s.rule } }, { silent: true }).catch(() => null)
      : Promise.resolve(null),
  ]);
  return { ...found, reg };
}

export function SourceEditor(props: {
  family: Family;
  value: SourceForm;
  onChange: (v: SourceForm) => void;
  customized: boolean;
  errorAt: (field: string) => string | undefined;
  context: IpTestContext;
}) {
  const { family, value: s } = props;
  const b = bindFields(s, (patch) => props.onChange({ ...s, ...patch }), props.errorAt);
  const tid = `ddns-${family}`;
  const ifaces = useQuery({ ...netInterfacesQuery(), enabled: s.type === 'interface' });
  const test = useTestRun(ZDdnsIpTestRequest, () => testSource(family, s, props.context));

  const types = family === 'ipv4' ? (['url', 'interface', 'command'] as const) : (['url', 'interface', 'command', 'odhcpd'] as const);
  const ifaceOptions = (ifaces.data?.interfaces ?? []).map((i) => {
    const addrs = (family === 'ipv4' ? i.ipv4 : i.ipv6).map((a) => a.address);
    return { value: i.name, label: addrs.length ? `${i.name} (${addrs.slice(0, 2).join(', ')}${addrs.length > 2 ? ', …' : ''})` : i.name };
  });
  if (s.interface && !ifaceOptions.some((o) => o.value === s.interface)) ifaceOptions.push({ value: s.interface, label: s.interface });
  const outcome = test.outcome;

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
          props.onChange({ ...s, type: v as SourceForm['type'] });
        }}
        error={props.errorAt('type')}
        data-testid={`${tid}-type`}
      />
      {s.type === 'url' && (
        <>
          <LinesInput label={ddnsText('urls')} description={ddnsText('urlsHint')} maxRows={6} {...b.text('urls')} data-testid={`${tid}-urls`} />
          {props.customized && <TextInput label={ddnsText('regex')} description={ddnsText('regexHint')} {...b.text('regex')} styles={mono} />}
        </>
      )}
      {s.type === 'interface' && (
        <Group grow align="flex-start">
          <Select
            label={ddnsText('netInterface')}
            placeholder={ifaces.isPending ? ddnsText('netInterfacesLoading') : ddnsText('netInterfacePlaceholder')}
            data={ifaceOptions}
            value={s.interface || null}
            onChange={(v) => props.onChange({ ...s, interface: v ?? '' })}
            searchable
            error={props.errorAt('interface')}
            data-testid={`${tid}-interface`}
            inputWrapperOrder={HINT_BELOW}
          />
          <TextInput label={ddnsText('rule')} description={ddnsText('ruleHint')} {...b.text('rule')} styles={mono} data-testid={`${tid}-rule`} inputWrapperOrder={HINT_BELOW} />
        </Group>
      )}
      {s.type === 'command' && (
        <>
          <LinesInput label={ddnsText('command')} description={ddnsText('commandHint')} minRows={1} maxRows={6} {...b.text('command')} data-testid={`${tid}-command`} />
          {props.customized && <WholeNumberInput label={ddnsText('commandTimeout')} min={1} max={120} {...b.number('commandTimeout')} maw={200} />}
        </>
      )}
      {s.type === 'odhcpd' && (
        <>
          <Text fz="xs" c="dimmed">
            {ddnsText('odhcpdHint')}
          </Text>
          <Group grow align="flex-start">
            <TextInput label={ddnsText('odhcpdFile')} {...b.text('odhcpdFile')} />
            <TextInput label={ddnsText('odhcpdHost')} {...b.text('odhcpdHost')} />
          </Group>
        </>
      )}
      <Group gap="xs" align="center">
        <Button size="xs" variant="light" onClick={() => test.run({ family, source: { ...s, urls: lines(s.urls), commandTimeout: Number(s.commandTimeout) } })} loading={test.pending} data-testid={`${tid}-test`}>
          {ddnsText('test')}
        </Button>
      </Group>
      {outcome && (
        <TestResult ok={outcome.kind === 'answered' && outcome.data.error === null} testId={`${tid}-test-result`}>
          {outcome.kind === 'refused' ? (
            outcome.message
          ) : outcome.kind === 'failed' ? (
            ddnsText('testFailed', { msg: outcome.message })
          ) : (
            <>
              {outcome.data.error === null
                ? ddnsText('testResult', { ip: outcome.data.ip, detail: outcome.data.detail })
                : ddnsText('testFailed', { msg: outcome.data.error })}
              {outcome.data.reg && (
                <>
                  <br />
                  {ddnsText('candidates')}:{' '}
                  {outcome.data.reg.candidates.length === 0
                    ? ddnsText('noCandidates')
                    : outcome.data.reg.candidates.map((c) => (
                        <Badge key={c} mr={4} variant={outcome.data.reg!.matches.includes(c) ? 'filled' : 'outline'} color={c === outcome.data.ip ? 'green' : 'gray'} tt="none">
                          {c}
                        </Badge>
                      ))}
                </>
              )}
            </>
          )}
        </TestResult>
      )}
    </Stack>
  );
}
