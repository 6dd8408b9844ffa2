/** Mantine theme: small controls by default, and Mantine's own texts (close buttons...) in the page's language. */
import {
  ActionIcon,
  Button,
  Checkbox,
  Modal,
  Notification,
  NumberInput,
  PasswordInput,
  Select,
  Switch,
  TextInput,
  Textarea,
  createTheme,
} from '@mantine/core';
import { t } from './i18n';

const size = 'sm';

export const theme = createTheme({
  primaryColor: 'blue',
  fontFamily:
    '-apple-system, BlinkMacSystemFont, "Segoe UI", Roboto, "Helvetica Neue", Arial, "PingFang SC", "Microsoft YaHei", "Noto Sans CJK SC", sans-serif',
  components: {
    Button: Button.extend({ defaultProps: { size } }),
    ActionIcon: ActionIcon.extend({ defaultProps: { size } }),
    TextInput: TextInput.extend({ defaultProps: { size } }),
    PasswordInput: PasswordInput.extend({
      defaultProps: { size, visibilityToggleButtonProps: { 'aria-label': t('login.password') } },
    }),
    NumberInput: NumberInput.extend({ defaultProps: { size } }),
    Select: Select.extend({ defaultProps: { size, nothingFoundMessage: t('common.unknown') } }),
    Switch: Switch.extend({ defaultProps: { size } }),
    Checkbox: Checkbox.extend({ defaultProps: { size } }),
    Textarea: Textarea.extend({ defaultProps: { size } }),
    Modal: Modal.extend({ defaultProps: { closeButtonProps: { 'aria-label': t('shell.close') } } }),
    Notification: Notification.extend({ defaultProps: { closeButtonProps: { 'aria-label': t('shell.close') } } }),
  },
});
