import { Button, Group, Modal, Text } from '@mantine/core';
import type { RuleTexts } from '../texts';

/** "Delete the rule X?" with the module's own wording of what goes with it, or the daemon's (`message`). */
export function ConfirmDelete(props: {
  name: string | null;
  /** The daemon's reason to ask (a confirmable delete's refusal) instead of the module's question. */
  message?: string | undefined;
  /** Instead of the module's "delete rule" title (another kind of entry: a user). */
  title?: string;
  /** On the dialog's text. */
  messageTestId?: string;
  text: RuleTexts;
  loading: boolean;
  onCancel: () => void;
  onConfirm: () => void;
  testId: string;
}) {
  return (
    <Modal opened={props.name !== null} onClose={props.onCancel} title={props.title ?? props.text('deleteTitle')} centered size="sm">
      <Text mb="lg" data-testid={props.messageTestId}>
        {props.message ?? props.text('deleteConfirm', { name: props.name ?? '' })}
      </Text>
      <Group justify="flex-end">
        <Button variant="default" onClick={props.onCancel}>
          {props.text('cancel')}
        </Button>
        <Button color="red" loading={props.loading} onClick={props.onConfirm} data-testid={props.testId}>
          {props.text('delete')}
        </Button>
      </Group>
    </Modal>
  );
}
