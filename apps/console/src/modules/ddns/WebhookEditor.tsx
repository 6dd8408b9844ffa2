/** A task's (or the module's global) webhook: called after updates, with presets for chat bots and a test call. */
import { Button, Code, Group, Stack, Switch } from '@mantine/core';
import { WEBHOOK_PRESETS, ZDdnsWebhookTestRequest, ddnsRoutes } from '@lucky/contracts';
import { useQuery } from '@tanstack/react-query';
import { call } from '../../api';
import { webhookToTask, type WebhookForm } from './form';
import { ddnsText } from './i18n';
import { ProxyEditor } from './ProxyEditor';
import { ddnsProvidersQuery } from './queries';
import { RequestFields } from './RequestFields';
import { TestResult, testTimeout, useTestRun } from './TestRun';

type TestBody = { webhook: ReturnType<typeof webhookToTask>; httpTimeout: number; skipVerify: boolean };

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
  const set = (patch: Partial<WebhookForm>) => props.onChange({ ...w, ...patch });
  const providers = useQuery(ddnsProvidersQuery());
  const test = useTestRun(ZDdnsWebhookTestRequest, (body: TestBody) => call(ddnsRoutes.webhookTest, { body }, { silent: true }));
  const tid = props.testId;
  const outcome = test.outcome;
  return (
    <Stack gap="xs">
      <Switch label={ddnsText('webhookEnable')} description={ddnsText('webhookHint')} checked={w.enable} onChange={(e) => set({ enable: e.currentTarget.checked })} data-testid={`${tid}-enable`} />
      {w.enable && (
        <>
          <RequestFields
            value={w}
            onChange={props.onChange}
            errorAt={props.errorAt}
            customized={props.customized}
            presets={WEBHOOK_PRESETS.map((p) => ({ value: p, label: ddnsText(`whPreset.${p}`) }))}
            presetValues={providers.data?.webhookPresets}
            texts={{ preset: ddnsText('webhookPreset'), url: ddnsText('webhookUrl'), urlHint: ddnsText('webhookVars') }}
            switches={<Switch label={ddnsText('webhookOnFailure')} checked={w.onFailure} onChange={(e) => set({ onFailure: e.currentTarget.checked })} />}
            testId={tid}
          />
          {props.customized && (
            <ProxyEditor label={ddnsText('webhookProxy')} value={w.proxy} onChange={(proxy) => set({ proxy })} errorAt={(f) => props.errorAt(`proxy.${f}`)} testId={`${tid}-proxy`} />
          )}
          <Group>
            <Button
              size="xs"
              variant="light"
              onClick={() => test.run({ webhook: { ...webhookToTask(w), enable: true }, httpTimeout: testTimeout(props.httpTimeout), skipVerify: props.skipVerify })}
              loading={test.pending}
              data-testid={`${tid}-test`}
            >
              {ddnsText('webhookTest')}
            </Button>
          </Group>
          {outcome && (
            <TestResult ok={outcome.kind === 'answered' && outcome.data.success} testId={`${tid}-test-result`}>
              {outcome.kind === 'refused' ? (
                outcome.message
              ) : outcome.kind === 'failed' ? (
                ddnsText('webhookTestBad', { msg: outcome.message })
              ) : (
                <>
                  {outcome.data.success
                    ? ddnsText('webhookTestOk', { status: outcome.data.status })
                    : ddnsText('webhookTestBad', { msg: outcome.data.msg || `HTTP ${outcome.data.status}` })}
                  {outcome.data.body && (
                    <>
                      <br />
                      {ddnsText('webhookAnswer')}: <Code>{outcome.data.body.slice(0, 300)}</Code>
                    </>
                  )}
                </>
              )}
            </TestResult>
          )}
        </>
      )}
    </Stack>
  );
}
