/** The HTTP request a webhook or a custom callback makes: preset, method, URL and, in customized mode, the rest. */
import { Group, Select, Switch, TextInput } from '@mantine/core';
import type { ReactNode } from 'react';
import { bindFields } from '../form/bindFields';
import { HeaderListInput } from '../fields/HeaderListInput';
import { LinesInput } from '../fields/LinesInput';
import { mono } from '../fields/styles';
import { kitText } from '../texts';
import { applyPreset, type PresetValues, type RequestForm } from './request';

const METHODS = ['GET', 'POST', 'PUT', 'PATCH'] as const;

type Request = Pick<RequestForm, 'url' | 'method' | 'headers' | 'body'>;

export function RequestFields<F extends RequestForm>(props: {
  value: F;
  onChange: (v: F) => void;
  errorAt: (field: string) => string | undefined;
  customized: boolean;
  presets: readonly { value: F['preset']; label: string }[];
  /** What the daemon's presets fill in, by preset. */
  presetValues: Record<string, PresetValues> | undefined;
  texts: { preset: string; url: string; urlHint: string };
  /** Beside the success check (the webhook's "also on failure"). */
  switches?: ReactNode;
  testId: string;
}) {
  const r = props.value;
  const set = (patch: Partial<F>) => props.onChange({ ...r, ...patch });
  const b = bindFields<Request>(r, (patch) => set(patch as Partial<F>), props.errorAt);
  const tid = props.testId;
  return (
    <>
      <Group grow align="flex-start">
        <Select
          label={props.texts.preset}
          data={props.presets.map((p) => ({ value: p.value, label: p.label }))}
          value={r.preset}
          allowDeselect={false}
          onChange={(v) => v && props.onChange(applyPreset(r, v as F['preset'], props.presetValues?.[v]))}
          data-testid={`${tid}-preset`}
        />
        <Select label={kitText('method')} data={[...METHODS]} allowDeselect={false} {...b.choice('method')} error={props.errorAt('method')} data-testid={`${tid}-method`} />
      </Group>
      <TextInput label={props.texts.url} description={props.texts.urlHint} {...b.text('url')} styles={mono} data-testid={`${tid}-url`} />
      {props.customized && (
        <>
          <HeaderListInput label={kitText('headers')} {...b.text('headers')} />
          {r.method !== 'GET' && <LinesInput label={kitText('body')} maxRows={10} {...b.text('body')} data-testid={`${tid}-body`} />}
          <Group grow align="center">
            {props.switches}
            <Switch label={kitText('successCheck')} checked={r.successCheck.enable} onChange={(e) => set({ successCheck: { ...r.successCheck, enable: e.currentTarget.checked } } as Partial<F>)} />
          </Group>
          {r.successCheck.enable && (
            <TextInput
              label={kitText('successText')}
              value={r.successCheck.text}
              onChange={(e) => set({ successCheck: { ...r.successCheck, text: e.currentTarget.value } } as Partial<F>)}
              error={props.errorAt('successCheck')}
              styles={mono}
            />
          )}
        </>
      )}
    </>
  );
}
