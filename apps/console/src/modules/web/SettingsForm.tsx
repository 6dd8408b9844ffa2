/** The module settings: how many access log entries a rule's log shows, how many threads serve, or the main thread alone. */
import { Switch } from '@mantine/core';
import { WEB_SERVING_THREADS_MAX, ZWebConfigure, type WebConfigure, type webRoutes } from '@lucky/contracts';
import { bindFields } from '../../kit/form/bindFields';
import { FormFrame } from '../../kit/form/FormFrame';
import { toNumber, type Num } from '../../kit/form/values';
import { WholeNumberInput } from '../../kit/fields/WholeNumberInput';
import type { SettingsFormProps } from '../../kit/module-settings/SettingsDialog';
import { useSettingsForm } from '../../kit/module-settings/useSettingsForm';
import { webProblem } from './checks';
import { webText } from './i18n';
import { webRules } from './ruleModule';

type Form = { accessLogShow: Num; servingThreads: Num; mainThreadOnly: boolean };
const toBody = (f: Form): WebConfigure => ({ accessLogShow: toNumber(f.accessLogShow), servingThreads: toNumber(f.servingThreads), mainThreadOnly: f.mainThreadOnly });

export function SettingsForm(props: SettingsFormProps<typeof webRoutes>) {
  const f = useSettingsForm({ rules: webRules, ...props, toForm: (c): Form => ({ ...c }), toBody, check: (form) => webProblem(ZWebConfigure, toBody(form)) });
  const b = bindFields(f.form, f.set, f.err);
  return (
    <FormFrame {...f.frame} problemsOnFieldsOnly>
      <WholeNumberInput label={webText('accessLogShow')} description={webText('accessLogShowHint')} min={1} max={256} {...b.number('accessLogShow')} data-testid="web-set-show" />
      <WholeNumberInput
        label={webText('servingThreads')}
        description={webText('servingThreadsHint')}
        min={0}
        max={WEB_SERVING_THREADS_MAX}
        {...b.number('servingThreads')}
        data-testid="web-set-threads"
      />
      <Switch label={webText('mainThreadOnly')} description={webText('mainThreadOnlyHint')} {...b.check('mainThreadOnly')} data-testid="web-set-main" />
    </FormFrame>
  );
}
