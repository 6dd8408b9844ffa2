/**
 * The frame of every form in a dialog: the fields, what is wrong, the daemon's refusal, and
 * cancel / save at the end. A nested form (a sub rule inside a rule) gets a plain button instead
 * of a submit, so its save cannot submit the outer form.
 */
import { Alert, Button, Group, Stack } from '@mantine/core';
import type { ReactNode, Ref } from 'react';
import { ProblemAlert } from './ProblemAlert';
import type { FormProblem } from './problems';

export interface FormFrameProps {
  onSave: () => void;
  onCancel: () => void;
  saving?: boolean;
  cancelText: string;
  saveText: string;
  saveTestId: string;
  problems: readonly FormProblem[];
  /** On the problems alert (see ProblemAlert for the ids inside it). */
  problemsTestId: string;
  serverError?: string | null;
  serverErrorTestId?: string | undefined;
  /** Lists every problem under this heading (see ProblemAlert). */
  problemListTitle?: string | undefined;
  problemNote?: ReactNode;
  /** A short form whose fields show their problems themselves: no alert under it. */
  problemsOnFieldsOnly?: boolean;
  /** A form inside another form's dialog: no <form> element of its own. */
  nested?: boolean;
  rootRef?: Ref<HTMLDivElement>;
  gap?: 'sm' | 'md';
  children: ReactNode;
}

/** A saving form's part of the frame (useSavingForm): its state, the usual buttons, its test ids. */
export function savingFrame(
  form: { submit: () => void; saving: boolean; problems: readonly FormProblem[]; serverError: string | null },
  onCancel: () => void,
  text: (id: 'cancel' | 'save') => string,
  testIds: { save: string; problems: string; serverError: string },
): Omit<FormFrameProps, 'children'> {
  return {
    onSave: form.submit,
    onCancel,
    saving: form.saving,
    cancelText: text('cancel'),
    saveText: text('save'),
    saveTestId: testIds.save,
    problems: form.problems,
    problemsTestId: testIds.problems,
    serverError: form.serverError,
    serverErrorTestId: testIds.serverError,
  };
}

export function FormFrame(props: FormFrameProps) {
  const body = (
    <Stack gap={props.gap ?? 'sm'} ref={props.rootRef}>
      {props.children}
      {!props.problemsOnFieldsOnly && (
        <ProblemAlert problems={props.problems} testId={props.problemsTestId} listTitle={props.problemListTitle} note={props.problemNote} />
      )}
      {props.serverError && (
        <Alert color="red" p="xs" data-testid={props.serverErrorTestId}>
          {props.serverError}
        </Alert>
      )}
      <Group justify="flex-end">
        <Button variant="default" onClick={props.onCancel}>
          {props.cancelText}
        </Button>
        <Button
          type={props.nested ? 'button' : 'submit'}
          onClick={props.nested ? props.onSave : undefined}
          loading={props.saving ?? false}
          data-testid={props.saveTestId}
        >
          {props.saveText}
        </Button>
      </Group>
    </Stack>
  );
  if (props.nested) return body;
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        props.onSave();
      }}
      noValidate
    >
      {body}
    </form>
  );
}
