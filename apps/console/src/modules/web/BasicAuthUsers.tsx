/** The users of basic auth: a stored user's blank password keeps the stored one, a new user needs one. */
import { ActionIcon, Button, Group, PasswordInput, Stack, TextInput } from '@mantine/core';
import { keepsPassword, type UserForm } from './form';
import { webText } from './i18n';

export function BasicAuthUsers(props: { users: UserForm[]; onChange: (users: UserForm[]) => void; errorAt: (field: string) => string | undefined; testId: string }) {
  const { users, testId: tid } = props;
  const change = (i: number, patch: Partial<UserForm>) => props.onChange(users.map((x, j) => (j === i ? { ...x, ...patch } : x)));
  return (
    <Stack gap="xs">
      {users.map((u, i) => (
        <Group key={i} align="flex-start" wrap="nowrap">
          <TextInput
            label={i === 0 ? webText('userName') : undefined}
            value={u.user}
            onChange={(e) => change(i, { user: e.currentTarget.value })}
            error={props.errorAt(`basicAuth.users.${i}.user`)}
            autoComplete="off"
            data-testid={`${tid}-user`}
            style={{ flex: 1 }}
          />
          <PasswordInput
            label={i === 0 ? webText('password') : undefined}
            placeholder={keepsPassword(u) ? webText('passwordKept') : webText('passwordNew')}
            value={u.password}
            onChange={(e) => change(i, { password: e.currentTarget.value })}
            error={props.errorAt(`basicAuth.users.${i}.password`)}
            autoComplete="new-password"
            data-testid={`${tid}-password`}
            style={{ flex: 1 }}
          />
          <ActionIcon variant="subtle" color="red" mt={i === 0 ? 26 : 4} onClick={() => props.onChange(users.filter((_, j) => j !== i))} aria-label={webText('remove')}>
            ✕
          </ActionIcon>
        </Group>
      ))}
      <Button
        variant="light"
        size="xs"
        w="fit-content"
        onClick={() => props.onChange([...users, { user: '', password: '', stored: false, storedName: '' }])}
        data-testid={`${tid}-user-add`}
      >
        {webText('userAdd')}
      </Button>
    </Stack>
  );
}
