/** Add/edit a device: its MACs, where the packet goes, SecureOn, how many packets. */
import { Group, Select, Switch, TextInput } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import type { wolRoutes } from '@lucky/contracts';
import { bindFields } from '../../kit/form/bindFields';
import { FormFrame } from '../../kit/form/FormFrame';
import { AddressPortFields } from '../../kit/fields/AddressPortFields';
import { LinesInput } from '../../kit/fields/LinesInput';
import { WholeNumberInput } from '../../kit/fields/WholeNumberInput';
import { useRuleForm, type RuleFormProps } from '../../kit/rule-dialog/useRuleForm';
import { checkDevice, emptyForm, formToDevice, toForm } from './form';
import { wolText } from './i18n';
import { wolInterfacesQuery } from './queries';
import { wolRules } from './ruleModule';

export function RuleForm(props: RuleFormProps<typeof wolRoutes>) {
  const f = useRuleForm(wolRules, props, { empty: emptyForm, toForm, toInput: formToDevice, check: checkDevice });
  // The daemon's one line names the field; the fields themselves stay as typed.
  const b = bindFields(f.form, f.set);
  const ifs = useQuery(wolInterfacesQuery()).data?.interfaces ?? [];
  return (
    <FormFrame {...f.frame}>
      <TextInput label={wolText('name')} {...b.text('name')} data-testid="wol-name" />
      <LinesInput label={wolText('macs')} description={wolText('macsHint')} {...b.text('macs')} data-testid="wol-macs" />
      <AddressPortFields
        address={{ label: wolText('broadcast'), description: wolText('broadcastHint'), ...b.text('broadcast'), 'data-testid': 'wol-broadcast' }}
        port={{ label: wolText('port'), ...b.number('port'), 'data-testid': 'wol-port' }}
      />
      <Group grow align="flex-start">
        <TextInput label={wolText('secureOn')} description={wolText('secureOnHint')} {...b.text('secureOn')} data-testid="wol-secureon" />
        <WholeNumberInput label={wolText('repeat')} min={1} max={10} {...b.number('repeat')} data-testid="wol-repeat" />
      </Group>
      <Group grow align="flex-start">
        <Select
          label={wolText('interface')}
          description={wolText('interfaceHint')}
          value={f.form.interface || null}
          clearable
          data={ifs.map((i) => ({ value: i.name, label: `${i.name} (${i.address} → ${i.broadcast})` }))}
          onChange={(name) => f.set({ interface: name ?? '', ...(name ? { broadcast: ifs.find((i) => i.name === name)?.broadcast ?? f.form.broadcast } : {}) })}
          data-testid="wol-interface"
        />
        <LinesInput label={wolText('targets')} description={wolText('targetsHint')} {...b.text('targets')} data-testid="wol-targets" />
      </Group>
      <Group grow align="flex-start">
        <TextInput label={wolText('checkHost')} description={wolText('checkHostHint')} {...b.text('checkHost')} data-testid="wol-checkhost" />
        <WholeNumberInput label={wolText('checkPort')} description={wolText('checkPortHint')} min={0} max={65535} {...b.number('checkPort')} data-testid="wol-checkport" />
      </Group>
      <TextInput label={wolText('note')} {...b.text('note')} />
      <Switch label={wolText('enable')} {...b.check('enable')} />
    </FormFrame>
  );
}
