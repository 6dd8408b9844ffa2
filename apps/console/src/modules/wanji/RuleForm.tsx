/**
 * Add/edit a device: its address, the API token of that device (kept by this daemon, shown masked),
 * how its certificate is trusted (a pinned fingerprint, or a CA), group, tags, note; and "test",
 * which reaches the device as the form has it and says its version and what the token may do.
 */
import { Button, Group, Switch, TextInput, Textarea } from '@mantine/core';
import { wanjiRoutes } from '@lucky/contracts';
import { call } from '../../api';
import { lang } from '../../i18n';
import { PemInput } from '../../kit/fields/PemInput';
import { SecretInput } from '../../kit/fields/SecretInput';
import { mono } from '../../kit/fields/styles';
import { bindFields } from '../../kit/form/bindFields';
import { FormFrame } from '../../kit/form/FormFrame';
import { TestResult, useTestRun } from '../../kit/form/TestRun';
import { useRuleForm, type RuleFormProps } from '../../kit/rule-dialog/useRuleForm';
import { checkDevice, emptyForm, formToDevice, toForm, type DeviceForm } from './form';
import { wanjiText } from './i18n';
import { wanjiRules } from './ruleModule';

export function RuleForm(props: RuleFormProps<typeof wanjiRoutes>) {
  const f = useRuleForm(wanjiRules, props, { empty: emptyForm, toForm, toInput: formToDevice, check: (form) => checkDevice(form, lang, props.editing.saved) });
  const b = bindFields(f.form, f.set, f.err);
  const https = /^https:/i.test(f.form.url.trim());
  return (
    <FormFrame {...f.frame}>
      <TextInput label={wanjiText('field.name')} withAsterisk {...b.text('name')} data-testid="wanji-name" />
      <TextInput label={wanjiText('field.url')} description={wanjiText('urlHint')} withAsterisk {...b.text('url')} styles={mono} data-testid="wanji-url" />
      <SecretInput label={wanjiText('field.token')} value={f.form.token} onChange={(token) => f.set({ token })} error={f.err('token')} testId="wanji-token" />
      {https && (
        <>
          <TextInput label={wanjiText('field.pin')} description={wanjiText('pinHint')} {...b.text('pin')} styles={mono} data-testid="wanji-pin" />
          <PemInput
            label={wanjiText('field.ca')}
            uploadLabel={wanjiText('caUpload')}
            value={f.form.ca}
            onValue={(ca) => f.set({ ca })}
            error={f.err('ca')}
            placeholder={wanjiText('caHint')}
            minRows={2}
            maxRows={6}
            testId="wanji-ca"
          />
        </>
      )}
      <Group grow align="flex-start">
        <TextInput label={wanjiText('field.group')} {...b.text('group')} data-testid="wanji-group" />
        <TextInput label={wanjiText('field.tags')} description={wanjiText('tagsHint')} {...b.text('tags')} data-testid="wanji-tags" />
      </Group>
      <Textarea label={wanjiText('field.note')} autosize minRows={1} maxRows={4} {...b.text('note')} />
      <Switch label={wanjiText('enable')} {...b.check('enable')} />
      <DeviceTest form={f.form} deviceKey={props.editing.key} />
    </FormFrame>
  );
}

type TestBody = { key?: string; device: ReturnType<typeof formToDevice> };

/** Reaches the device with what the form holds; a masked token stands for the saved one. */
function DeviceTest({ form, deviceKey }: { form: DeviceForm; deviceKey: string | null }) {
  const test = useTestRun(wanjiRoutes.test.body, (body: TestBody) => call(wanjiRoutes.test, { body }, { silent: true }));
  const o = test.outcome;
  return (
    <>
      <Group>
        <Button variant="light" loading={test.pending} onClick={() => test.run({ ...(deviceKey ? { key: deviceKey } : {}), device: formToDevice(form) })} data-testid="wanji-test">
          {wanjiText('test')}
        </Button>
      </Group>
      {o && (
        <TestResult ok={o.kind === 'answered'} testId="wanji-test-result">
          {o.kind === 'answered' ? o.data.msg : o.message}
        </TestResult>
      )}
    </>
  );
}
