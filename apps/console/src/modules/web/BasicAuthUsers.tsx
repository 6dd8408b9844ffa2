/** The users of basic auth: a stored user's blank password keeps the stored one, a new user needs one. */
import { ActionIcon, Button, Group, PasswordInput, Stack, TextInput } from '@mantine/core';
import { keepsPassword, type UserForm } from './form';
import { webText } from './i18n';

export function BasicAuthUsers(props: { users: UserForm[]; onChange: (users: UserForm[]) => void; errorAt: (field: string) => string | undefined; testId: string }) {
  const { users, testId: tid } = props;
  /** The props of user `i`'s name or password input; labels only on the first row. */
  const input = (i: number, field: 'user' | 'password') => ({
    value: users[i]![field],
    onChange: (e: React.ChangeEvent<HTMLInputElement>) => props.onChange(users.map((x, j) => (j === i ? { ...x, [field]: e.currentTarget.value } : x))),
    error: props.errorAt(`basicAuth.users.${i}.${field}`),
    'data-testid': `${tid}-${field}`,
    style: { flex: 1 },
  });
  return (
    <Stack gap="xs">
      {users.map((u, i) => (
        <Group key={i} align="flex-start" wrap="nowrap">
          <TextInput label={i === 0 ? webText('userName') : undefined} autoComplete="off" {...input(i, 'user')} />
          <PasswordInput
            label={i === 0 ? webText('password') : undefined}
            placeholder={keepsPassword(u) ? webText('passwordKept') : webText('passwordNew')}
            autoComplete="new-password"
            {...input(i, 'password')}
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
