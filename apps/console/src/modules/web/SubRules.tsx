/**
 * A rule's sub rules: a table in the rule form, each edited in its own dialog. A sub rule's form is
 * checked on "OK" and goes into the rule; the daemon sees it when the rule is saved.
 */
import { ActionIcon, Badge, Button, Group, Modal, Stack, Switch, Table, Text } from '@mantine/core';
import { useMediaQuery } from '@mantine/hooks';
import { useRef, useState } from 'react';
import { FormFrame } from '../../kit/form/FormFrame';
import { bindFields } from '../../kit/form/bindFields';
import { useScrollToProblem } from '../../kit/form/scrollToProblem';
import { useCheckedForm } from '../../kit/form/useCheckedForm';
import { LinesInput } from '../../kit/fields/LinesInput';
import { NameAndSwitch } from '../../kit/fields/NameAndSwitch';
import { NARROW_QUERY } from '../../kit/rule-dialog/RuleDialog';
import { AccessEditor } from './AccessEditor';
import { accessSectionOf, checkSubRule } from './checks';
import { emptySubRule, type SubRuleForm } from './form';
import { webText } from './i18n';
import { ServiceEditor } from './ServiceEditor';
import { TableHead } from '../../kit/table/TableHead';

type Editing = { index: number | null; form: SubRuleForm };

export function SubRules(props: { value: SubRuleForm[]; onChange: (v: SubRuleForm[]) => void; errorAt: (field: string) => string | undefined; ruleSaved: boolean }) {
  const subs = props.value;
  const [editing, setEditing] = useState<Editing | null>(null);
  const narrow = useMediaQuery(NARROW_QUERY);
  const change = (i: number, patch: Partial<SubRuleForm>) => props.onChange(subs.map((s, j) => (j === i ? { ...s, ...patch } : s)));
  return (
    <Stack gap="xs">
      {subs.length === 0 ? (
        <Text c="dimmed" fz="sm" data-testid="web-sub-empty">
          {webText('subEmpty')}
        </Text>
      ) : (
        <Table striped verticalSpacing={6} data-testid="web-sub-table">
          <TableHead titles={[webText('colName'), webText('subColDomains'), webText('subColService'), webText('colEnable'), '']} />
          <Table.Tbody>
            {subs.map((s, i) => (
              <Table.Tr key={i} data-testid="web-sub-row">
                <Table.Td>
                  {s.name || (
                    <Text span c="dimmed" fz="sm">
                      {webText('subNoName')}
                    </Text>
                  )}
                  {props.errorAt(`subRules.${i}`) && (
                    <Text fz="xs" c="red">
                      {props.errorAt(`subRules.${i}`)}
                    </Text>
                  )}
                </Table.Td>
                <Table.Td style={{ fontFamily: 'monospace', fontSize: 12 }}>{s.domains.split('\n').filter(Boolean).join(', ')}</Table.Td>
                <Table.Td>
                  <Badge variant="light" tt="none">
                    {webText(`type.${s.service.type}`)}
                  </Badge>
                </Table.Td>
                <Table.Td>
                  <Switch checked={s.enable} onChange={(e) => change(i, { enable: e.currentTarget.checked })} aria-label={webText('colEnable')} />
                </Table.Td>
                <Table.Td>
                  <Group gap={6} wrap="nowrap" justify="flex-end">
                    <Button size="xs" variant="default" onClick={() => setEditing({ index: i, form: structuredClone(s) })} data-testid="web-sub-edit">
                      {webText('editShort')}
                    </Button>
                    <ActionIcon variant="subtle" color="red" onClick={() => props.onChange(subs.filter((_, j) => j !== i))} aria-label={webText('delete')} data-testid="web-sub-delete">
                      ✕
                    </ActionIcon>
                  </Group>
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
      <Group justify="space-between">
        <Button variant="light" onClick={() => setEditing({ index: null, form: emptySubRule() })} data-testid="web-sub-add">
          {webText('subAdd')}
        </Button>
        {props.ruleSaved && (
          <Text fz="xs" c="dimmed">
            {webText('subUnsaved')}
          </Text>
        )}
      </Group>
      <Modal
        opened={editing !== null}
        onClose={() => setEditing(null)}
        title={editing?.index === null ? webText('subAdd') : webText('subEdit')}
        size={900}
        fullScreen={narrow}
        closeOnClickOutside={false}
        data-testid="web-sub-form"
      >
        {editing && (
          <SubRuleForm
            initial={editing.form}
            onClose={() => setEditing(null)}
            onDone={(s) => {
              props.onChange(editing.index === null ? [...subs, s] : subs.map((x, j) => (j === editing.index ? s : x)));
              setEditing(null);
            }}
          />
        )}
      </Modal>
    </Stack>
  );
}

function SubRuleForm(props: { initial: SubRuleForm; onClose: () => void; onDone: (s: SubRuleForm) => void }) {
  const f = useCheckedForm(() => props.initial, checkSubRule);
  const [open, setOpen] = useState<string[]>([]);
  const rootRef = useRef<HTMLDivElement>(null);
  useScrollToProblem(rootRef, f.attempt);
  const { form, err } = f;
  const b = bindFields(form, f.set, err);
  // Checked here, then handed to the rule's form: no call, no <form> of its own inside the rule's.
  const done = () => {
    const [p] = f.checkNow();
    if (!p) return props.onDone(form);
    const section = accessSectionOf(p.path);
    if (section && !open.includes(section)) setOpen([...open, section]);
  };
  return (
    <FormFrame
      nested
      onSave={done}
      onCancel={props.onClose}
      cancelText={webText('cancel')}
      saveText={webText('ok')}
      saveTestId="web-sub-done"
      problems={f.problems}
      problemsTestId="web-sub-error"
      rootRef={rootRef}
    >
      <NameAndSwitch
        name={{ label: webText('subName'), ...b.text('name'), 'data-testid': 'web-sub-name' }}
        enable={{ label: webText('enable'), ...b.check('enable'), 'data-testid': 'web-sub-enable' }}
      />
      <LinesInput
        label={webText('subDomains')}
        description={webText('subDomainsHint')}
        // A red placeholder under an error would read like a value.
        placeholder={err('domains') ? undefined : 'www.example.com\n*.example.com'}
        maxRows={10}
        {...b.text('domains')}
        data-testid="web-sub-domains"
      />
      <ServiceEditor value={form.service} onChange={(service) => f.set({ service })} errorAt={(field) => err(`service.${field}`)} testId="web-sub-service" />
      <Text fz="sm" fw={500} mt="xs">
        {webText('tabAccess')}
      </Text>
      <Text fz="xs" c="dimmed" mt={-8}>
        {webText('accessSubHint')}
      </Text>
      <AccessEditor value={form.access} onChange={(access) => f.set({ access })} errorAt={err} open={open} onOpen={setOpen} testId="web-sub-access" />
    </FormFrame>
  );
}
