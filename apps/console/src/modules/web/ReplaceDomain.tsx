/** Batch domain replace: one domain for another in every rule, or in the rules chosen (spec section 5: the domain cannot be empty). */
import { Button, Group, Modal, MultiSelect, TextInput } from '@mantine/core';
import type { webRoutes } from '@lucky/contracts';
import { useState } from 'react';
import { call } from '../../api';
import { pushNotice } from '../../api/notices';
import { bindFields } from '../../kit/form/bindFields';
import { FormFrame, savingFrame } from '../../kit/form/FormFrame';
import { useSavingForm } from '../../kit/form/useSavingForm';
import { mono } from '../../kit/fields/styles';
import type { RuleViewOf } from '../../kit/rule-list/ruleModule';
import { checkReplace, replaceBody, type ReplaceForm } from './checks';
import { webText } from './i18n';
import { webRules } from './ruleModule';

type Rule = RuleViewOf<typeof webRoutes>;

/** The title bar's button and its dialog. */
export function ReplaceDomain(props: { rules: Rule[]; enabled: boolean }) {
  const [opened, setOpened] = useState(false);
  return (
    <>
      <Button variant="default" onClick={() => setOpened(true)} disabled={!props.enabled || props.rules.length === 0} data-testid="web-replace-open">
        {webText('replace')}
      </Button>
      <Modal opened={opened} onClose={() => setOpened(false)} title={webText('replace')} size="lg" closeOnClickOutside={false} data-testid="web-replace">
        {opened && <ReplaceBody rules={props.rules} onClose={() => setOpened(false)} />}
      </Modal>
    </>
  );
}

function ReplaceBody(props: { rules: Rule[]; onClose: () => void }) {
  const f = useSavingForm({
    initial: (): ReplaceForm => ({ from: '', to: '', keys: [] }),
    check: checkReplace,
    toBody: replaceBody,
    send: (body: ReturnType<typeof replaceBody>) => call(webRules.routes.replaceDomain, { body }, { silent: true }),
    afterSave: (r) => pushNotice(r.changed ? webText('replaceDone', { changed: r.changed, rules: r.rules }) : webText('replaceNone'), r.changed ? 'green' : 'blue'),
    invalidate: webRules.queries.keys.rules,
    onSaved: props.onClose,
  });
  const b = bindFields(f.form, f.set, f.err);
  return (
    <FormFrame
      {...savingFrame(f, props.onClose, webText, { save: 'web-replace-run', problems: 'web-replace-error', serverError: 'web-replace-server-error' })}
      saveText={webText('replaceRun')}
      problemsOnFieldsOnly
    >
      <Group grow align="flex-start">
        <TextInput label={webText('replaceFrom')} placeholder="old.example.com" {...b.text('from')} styles={mono} data-testid="web-replace-from" />
        <TextInput label={webText('replaceTo')} placeholder="new.example.com" {...b.text('to')} styles={mono} data-testid="web-replace-to" />
      </Group>
      <MultiSelect
        label={webText('replaceRules')}
        description={webText('replaceRulesHint')}
        data={props.rules.map((r) => ({ value: r.key, label: r.name }))}
        value={f.form.keys}
        onChange={(keys) => f.set({ keys })}
        clearable
        searchable
        data-testid="web-replace-rules"
        comboboxProps={{ withinPortal: true }}
      />
    </FormFrame>
  );
}
