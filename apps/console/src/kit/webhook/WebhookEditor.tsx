/**
 * A webhook of a module (DDNS after updates, STUN on address changes): switch, presets for chat
 * bots, the request, its proxy, and a test call with sample values.
 */
import { Button, Code, Group, Stack, Switch } from '@mantine/core';
import { WEBHOOK_PRESETS, type Webhook } from '@lucky/contracts';
import type { ReactNode } from 'react';
import type { Schema } from '../form/problems';
import { TestResult, useTestRun } from '../form/TestRun';
import { kitText } from '../texts';
import { ProxyEditor } from './ProxyEditor';
import { RequestFields } from './RequestFields';
import { webhookToBody, type PresetValues, type WebhookFormOf } from './request';

/** What a webhook test answers (the module's webhookTest route). */
export interface WebhookTestAnswer {
  success: boolean;
  status: number;
  body: string;
  msg: string;
}

export function WebhookEditor<W extends Webhook>(props: {
  value: WebhookFormOf<W>;
  onChange: (v: WebhookFormOf<W>) => void;
  errorAt: (field: string) => string | undefined;
  customized: boolean;
  /** Under the switch: when the module calls it. */
  hint: string;
  /** Under the URL: the variables the module fills in. */
  vars: string;
  presetValues: Record<string, PresetValues> | undefined;
  /** Beside the success check (DDNS: "also on failure"). */
  switches?: ReactNode;
  /** The test call: the request around the webhook (switched on), its schema (checked first), the call. */
  test: { body: (webhook: W) => unknown; schema: Schema; send: (body: never) => Promise<WebhookTestAnswer> };
  testId: string;
}) {
  const w = props.value;
  const set = (patch: Partial<WebhookFormOf<W>>) => props.onChange({ ...w, ...patch });
  const test = useTestRun(props.test.schema, props.test.send as (body: unknown) => Promise<WebhookTestAnswer>);
  const tid = props.testId;
  const outcome = test.outcome;
  return (
    <Stack gap="xs">
      <Switch label={kitText('webhookEnable')} description={props.hint} checked={w.enable} onChange={(e) => set({ enable: e.currentTarget.checked } as Partial<WebhookFormOf<W>>)} data-testid={`${tid}-enable`} />
      {w.enable && (
        <>
          <RequestFields
            value={w}
            onChange={props.onChange}
            errorAt={props.errorAt}
            customized={props.customized}
            presets={WEBHOOK_PRESETS.map((p) => ({ value: p, label: kitText(`whPreset.${p}`) }))}
            presetValues={props.presetValues}
            texts={{ preset: kitText('webhookPreset'), url: kitText('webhookUrl'), urlHint: props.vars }}
            switches={props.switches}
            testId={tid}
          />
          {props.customized && (
            <ProxyEditor
              label={kitText('webhookProxy')}
              value={w.proxy}
              onChange={(proxy) => set({ proxy } as Partial<WebhookFormOf<W>>)}
              errorAt={(f) => props.errorAt(`proxy.${f}`)}
              testId={`${tid}-proxy`}
            />
          )}
          <Group>
            <Button size="xs" variant="light" onClick={() => test.run(props.test.body({ ...webhookToBody<W>(w), enable: true }))} loading={test.pending} data-testid={`${tid}-test`}>
              {kitText('webhookTest')}
            </Button>
          </Group>
          {outcome && (
            <TestResult ok={outcome.kind === 'answered' && outcome.data.success} testId={`${tid}-test-result`}>
              {outcome.kind === 'refused' ? (
                outcome.message
              ) : outcome.kind === 'failed' ? (
                kitText('webhookTestBad', { msg: outcome.message })
              ) : (
                <>
                  {outcome.data.success
                    ? kitText('webhookTestOk', { status: outcome.data.status })
                    : kitText('webhookTestBad', { msg: outcome.data.msg || `HTTP ${outcome.data.status}` })}
                  {outcome.data.body && (
                    <>
                      <br />
                      {kitText('webhookAnswer')}: <Code>{outcome.data.body.slice(0, 300)}</Code>
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
