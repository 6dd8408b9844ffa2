/**
 * A module's settings dialog: loads the settings when opened, and hands them to the module's form
 * (useSettingsForm), which replaces the whole object on save.
 */
import { Alert, Modal, Skeleton, type ModalProps } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import type { ComponentType } from 'react';
import type { RuleModule, SettingsOf, UniformRuleRoutes } from '../rule-list/ruleModule';

export interface SettingsFormProps<R extends UniformRuleRoutes> {
  initial: SettingsOf<R>;
  onClose: () => void;
}

export function SettingsDialog<R extends UniformRuleRoutes>(props: {
  rules: RuleModule<R>;
  opened: boolean;
  onClose: () => void;
  size: ModalProps['size'];
  Form: ComponentType<SettingsFormProps<R>>;
}) {
  const configure = useQuery({ ...props.rules.queries.configure(), enabled: props.opened });
  const { Form } = props;
  return (
    <Modal opened={props.opened} onClose={props.onClose} title={props.rules.text('settingsTitle')} size={props.size} closeOnClickOutside={false} data-testid={props.rules.testIds.settings}>
      {props.opened &&
        (configure.data ? (
          <Form initial={(configure.data as unknown as { configure: SettingsOf<R> }).configure} onClose={props.onClose} />
        ) : configure.isError ? (
          <Alert color="red">{configure.error.message}</Alert>
        ) : (
          <Skeleton h={160} />
        ))}
    </Modal>
  );
}
