/** Add/edit a portal user: name and switch, password (kept by the mask), the web rules they may open, their second factor, a note. */
import { TextInput } from '@mantine/core';
import type { portalRoutes } from '@lucky/contracts';
import { NameAndSwitch } from '../../kit/fields/NameAndSwitch';
import { SecretInput } from '../../kit/fields/SecretInput';
import { bindFields } from '../../kit/form/bindFields';
import { FormFrame } from '../../kit/form/FormFrame';
import { useRuleForm, type RuleFormProps } from '../../kit/rule-dialog/useRuleForm';
import { checkRule, emptyForm, formToRule, passwordHint, toForm } from './form';
import { portalText as t } from './i18n';
import { portalRules } from './ruleModule';
import { TotpField } from './TotpField';
import { WebRulesField } from './WebRulesField';

export function RuleForm(props: RuleFormProps<typeof portalRoutes>) {
  const f = useRuleForm(portalRules, props, { empty: emptyForm, toForm, toInput: formToRule, check: checkRule });
  const { form, err } = f;
  const b = bindFields(form, f.set, err);
  return (
    <FormFrame {...f.frame} problemListTitle={t('formErrors')}>
      <NameAndSwitch
        name={{ label: t('name'), description: t('nameHint'), withAsterisk: true, autoComplete: 'off', ...b.text('name'), 'data-testid': 'portal-name' }}
        enable={{ label: t('enable'), ...b.check('enable'), 'data-testid': 'portal-enable' }}
      />
      <SecretInput label={t('password')} value={form.password} onChange={(password) => f.set({ password })} error={err('password')} hint={passwordHint(form, t)} testId="portal-password" />
      <WebRulesField value={form.rules} onChange={(rules) => f.set({ rules })} error={err('rules')} />
      <TotpField name={form.name} value={form.totp} onChange={(totp) => f.set({ totp })} error={err('totp')} />
      <TextInput label={t('note')} {...b.text('note')} data-testid="portal-note" />
    </FormFrame>
  );
}
