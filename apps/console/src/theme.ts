/**
 * Mantine theme: small controls by default, and Mantine's own texts (close buttons...) in the page's
 * language. Plain objects rather than `Component.extend()`, so the theme does not pull every
 * component it configures into the login page's bundle.
 */
import { createTheme } from '@mantine/core';
import { shellText } from './i18n';

const size = 'sm';
const small = { defaultProps: { size } };
const closeLabel = { 'aria-label': shellText('shell.close') };

export const theme = createTheme({
  primaryColor: 'blue',
  fontFamily:
    '-apple-system, BlinkMacSystemFont, "Segoe UI", Roboto, "Helvetica Neue", Arial, "PingFang SC", "Microsoft YaHei", "Noto Sans CJK SC", sans-serif',
  components: {
    Button: small,
    ActionIcon: small,
    TextInput: small,
    PasswordInput: { defaultProps: { size, visibilityToggleButtonProps: { 'aria-label': shellText('shell.togglePassword') } } },
    NumberInput: small,
    Select: { defaultProps: { size, nothingFoundMessage: shellText('common.unknown') } },
    NativeSelect: small,
    Switch: small,
    Checkbox: small,
    Textarea: small,
    SegmentedControl: small,
    Modal: { defaultProps: { closeButtonProps: closeLabel } },
    ModalCloseButton: { defaultProps: closeLabel },
    Notification: { defaultProps: { closeButtonProps: closeLabel } },
    Alert: { defaultProps: { closeButtonLabel: shellText('shell.close') } },
  },
});
