/**
 * Add/edit a published service: the LAN service, its public names, the DDNS task whose account
 * holds their zone, how it is reached from outside (the router forwards, or STUN behind a carrier's
 * NAT), whether the router is asked; the ports and STUN servers folded away (the defaults fit most
 * homes), opened by itself when one of them is wrong.
 */
import { Accordion, Group, Input, SegmentedControl, Switch, Text, TextInput } from '@mantine/core';
import type { publishRoutes } from '@lucky/contracts';
import { useState } from 'react';
import { LinesInput } from '../../kit/fields/LinesInput';
import { HINT_BELOW, mono } from '../../kit/fields/styles';
import { WholeNumberInput } from '../../kit/fields/WholeNumberInput';
import { bindFields } from '../../kit/form/bindFields';
import { FormFrame } from '../../kit/form/FormFrame';
import { useRuleForm, type RuleFormProps } from '../../kit/rule-dialog/useRuleForm';
import { DnsTaskField } from './DnsTaskField';
import { checkRule, emptyForm, formToRule, isAdvanced, toForm, type ServiceForm } from './form';
import { publishText as t } from './i18n';
import { publishRules } from './ruleModule';

export function RuleForm(props: RuleFormProps<typeof publishRoutes>) {
  const [open, setOpen] = useState<string | null>(null);
  const f = useRuleForm(publishRules, props, {
    empty: emptyForm,
    toForm,
    toInput: formToRule,
    check: checkRule,
    onRefused: (found) => {
      if (found.some((p) => isAdvanced(p.path))) setOpen('advanced');
    },
  });
  const v = f.form;
  const b = bindFields(v, f.set, f.err);
  return (
    <FormFrame {...f.frame} problemListTitle={t('formErrors')}>
      <TextInput label={t('name')} description={t('nameHint')} withAsterisk {...b.text('name')} data-testid="publish-name" />
      <TextInput label={t('target')} description={t('targetHint')} placeholder="http://192.168.1.5:8123" withAsterisk {...b.text('target')} styles={mono} data-testid="publish-target" />
      <LinesInput label={t('names')} description={t('namesHint')} placeholder="ha.example.com" withAsterisk {...b.text('names')} data-testid="publish-names" />
      <DnsTaskField value={v.dnsTask} onChange={(dnsTask) => f.set({ dnsTask })} error={f.err('dnsTask')} />
      <Input.Wrapper label={t('reach')} description={t('reachHint')} inputWrapperOrder={['label', 'input', 'description']}>
        <SegmentedControl
          fullWidth
          value={v.reach}
          onChange={(reach) => f.set({ reach: reach as ServiceForm['reach'] })}
          data={[
            { value: 'direct', label: t('reach.direct') },
            { value: 'stun', label: t('reach.stun') },
          ]}
          data-testid="publish-reach"
        />
      </Input.Wrapper>
      <Switch
        label={v.reach === 'stun' ? t('mapRouterStun') : t('mapRouter')}
        description={v.reach === 'stun' ? t('mapRouterStunHint') : t('mapRouterHint')}
        {...b.check('mapRouter')}
        data-testid="publish-maprouter"
      />
      <Accordion value={open} onChange={setOpen} variant="contained">
        <Accordion.Item value="advanced">
          <Accordion.Control data-testid="publish-advanced">
            <Text fz="sm">{t('advanced')}</Text>
            <Text fz="xs" c="dimmed">
              {v.reach === 'stun'
                ? t('advancedSummaryStun', { https: String(v.httpsPort) })
                : t('advancedSummary', { https: String(v.httpsPort), http: String(v.httpPort), publicHttps: String(v.publicHttpsPort), publicHttp: String(v.publicHttpPort) })}
            </Text>
          </Accordion.Control>
          <Accordion.Panel>
            <AdvancedFields form={v} b={b} />
          </Accordion.Panel>
        </Accordion.Item>
      </Accordion>
      <TextInput label={t('note')} {...b.text('note')} data-testid="publish-note" />
      <Switch label={t('enable')} {...b.check('enable')} data-testid="publish-enable" />
    </FormFrame>
  );
}

/**
 * The ports here (the web rule's) and on the router (what it forwards from), and the router's UPnP
 * address; in STUN mode the HTTPS port here and the STUN servers (the public port is STUN's).
 */
function AdvancedFields({ form, b }: { form: ServiceForm; b: ReturnType<typeof bindFields<ServiceForm>> }) {
  const port = { min: 1, max: 65535, inputWrapperOrder: HINT_BELOW };
  if (form.reach === 'stun') {
    return (
      <>
        <WholeNumberInput label={t('httpsPort')} description={t('httpsPortHint')} {...port} {...b.number('httpsPort')} mb="sm" data-testid="publish-https-port" />
        <LinesInput label={t('stunServers')} description={t('stunServersHint')} placeholder="stun.example.com:3478" {...b.text('stunServers')} mb="sm" data-testid="publish-stun-servers" />
        {form.mapRouter && (
          <TextInput label={t('upnpUrl')} description={t('upnpUrlHint')} placeholder="http://192.168.1.1:5000/rootDesc.xml" {...b.text('upnpUrl')} styles={mono} data-testid="publish-upnp-url" />
        )}
      </>
    );
  }
  return (
    <>
      <Group grow align="flex-start" mb="sm">
        <WholeNumberInput label={t('httpsPort')} description={t('httpsPortHint')} {...port} {...b.number('httpsPort')} data-testid="publish-https-port" />
        <WholeNumberInput label={t('httpPort')} description={t('httpPortHint')} {...port} {...b.number('httpPort')} data-testid="publish-http-port" />
      </Group>
      <Group grow align="flex-start" mb="sm">
        <WholeNumberInput label={t('publicHttpsPort')} description={t('publicHttpsPortHint')} {...port} {...b.number('publicHttpsPort')} data-testid="publish-public-https-port" />
        <WholeNumberInput label={t('publicHttpPort')} description={t('publicHttpPortHint')} {...port} {...b.number('publicHttpPort')} data-testid="publish-public-http-port" />
      </Group>
      {form.mapRouter && (
        <TextInput label={t('upnpUrl')} description={t('upnpUrlHint')} placeholder="http://192.168.1.1:5000/rootDesc.xml" {...b.text('upnpUrl')} styles={mono} data-testid="publish-upnp-url" />
      )}
    </>
  );
}
