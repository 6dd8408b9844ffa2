/** A task's (or the module's global) webhook: the kit's editor with DDNS's variables, "also on failure" and its test call. */
import { Switch } from '@mantine/core';
import { ZDdnsWebhookTestRequest, ddnsRoutes, type DdnsWebhook, type RouteBody } from '@lucky/contracts';
import { useQuery } from '@tanstack/react-query';
import { call } from '../../api';
import { WebhookEditor as KitWebhookEditor } from '../../kit/webhook/WebhookEditor';
import { testTimeout, type WebhookForm } from './form';
import { ddnsText } from './i18n';
import { ddnsProvidersQuery } from './queries';

type TestBody = RouteBody<typeof ddnsRoutes.webhookTest>;

export function WebhookEditor(props: {
  value: WebhookForm;
  onChange: (v: WebhookForm) => void;
  errorAt: (field: string) => string | undefined;
  customized: boolean;
  httpTimeout: number;
  skipVerify: boolean;
  testId: string;
}) {
  const w = props.value;
  const providers = useQuery(ddnsProvidersQuery());
  return (
    <KitWebhookEditor<DdnsWebhook>
      value={w}
      onChange={props.onChange}
      errorAt={props.errorAt}
      customized={props.customized}
      hint={ddnsText('webhookHint')}
      vars={ddnsText('webhookVars')}
      presetValues={providers.data?.webhookPresets}
      switches={<Switch label={ddnsText('webhookOnFailure')} checked={w.onFailure} onChange={(e) => props.onChange({ ...w, onFailure: e.currentTarget.checked })} />}
      test={{
        body: (webhook): TestBody => ({ webhook, httpTimeout: testTimeout(props.httpTimeout), skipVerify: props.skipVerify }),
        schema: ZDdnsWebhookTestRequest,
        send: (body: TestBody) => call(ddnsRoutes.webhookTest, { body }, { silent: true }),
      }}
      testId={props.testId}
    />
  );
}
