import { Button, Group, Modal, Text } from '@mantine/core';
import { shellText } from '../i18n';

/** Spec section 4: title Warning, 确定要注销登录?, buttons 确认 and 点错了. */
export function LogoutDialog(props: { opened: boolean; onConfirm: () => void; onCancel: () => void }) {
  return (
    <Modal opened={props.opened} onClose={props.onCancel} title={shellText('logout.title')} centered size="sm" data-testid="logout-dialog">
      <Text mb="lg">{shellText('logout.question')}</Text>
      <Group justify="flex-end">
        <Button variant="default" onClick={props.onCancel} data-testid="logout-cancel">
          {shellText('logout.cancel')}
        </Button>
        <Button color="red" onClick={props.onConfirm} data-testid="logout-confirm">
          {shellText('logout.confirm')}
        </Button>
      </Group>
    </Modal>
  );
}
