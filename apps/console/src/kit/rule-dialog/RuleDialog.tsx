/** The add/edit dialog of a rule list: the module's form inside, mounted only while open. */
import { Modal, type ModalProps } from '@mantine/core';
import { useMediaQuery } from '@mantine/hooks';
import type { ComponentType } from 'react';
import type { RuleModule, RuleViewOf, UniformRuleRoutes } from '../rule-list/ruleModule';
import type { Editing, RuleFormProps } from './useRuleForm';

export const NARROW_QUERY = '(max-width: 768px)';

export function RuleDialog<R extends UniformRuleRoutes>(props: {
  rules: RuleModule<R>;
  editing: Editing<RuleViewOf<R>> | null;
  onClose: () => void;
  size: ModalProps['size'];
  Form: ComponentType<RuleFormProps<R>>;
}) {
  const narrow = useMediaQuery(NARROW_QUERY);
  const { Form } = props;
  return (
    <Modal
      opened={props.editing !== null}
      onClose={props.onClose}
      title={props.editing?.key ? props.rules.text('edit') : props.rules.text('add')}
      size={props.size}
      fullScreen={narrow}
      closeOnClickOutside={false}
      data-testid={props.rules.testIds.form}
    >
      {props.editing && <Form editing={props.editing} onClose={props.onClose} />}
    </Modal>
  );
}
