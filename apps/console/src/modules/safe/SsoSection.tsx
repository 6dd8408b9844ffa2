/**
 * Single sign-on with OpenID Connect: the provider, who may manage Lucky (admin groups) and who may
 * open which rule with Lucky login (portal groups), and the redirect URIs to register. The daemon reads
 * the provider's configuration before it saves; when it cannot, its message is the form's error.
 */
import { Alert, PasswordInput, SimpleGrid, Skeleton, Stack, Switch, TagsInput, TextInput } from '@mantine/core';
import { SECRET_MASK, ZOidcSettings, safeRoutes, type OidcSettings } from '@lucky/contracts';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { call } from '../../api';
import { pushNotice } from '../../api/notices';
import { safeText } from './i18n';
import { formToOidc, secretAgain } from './oidc';
import { oidcQuery } from './queries';
import { SsoGroupsEditor } from './SsoGroupsEditor';
import { SsoRedirects } from './SsoRedirects';
import { SettingsSection } from './ui';
import { useSubmit } from './useSubmit';

type TextKey = 'issuer' | 'clientId' | 'label' | 'usernameClaim' | 'groupsClaim';
type ListKey = 'scopes' | 'adminGroups';
/** The contract's own defaults, shown where a field is left empty. */
const DEFAULTS = ZOidcSettings.parse({});

function SsoForm(props: { saved: OidcSettings }) {
  const queryClient = useQueryClient();
  const [form, setForm] = useState<OidcSettings>(props.saved);
  const { error, busy, submit } = useSubmit();
  const serverValue = JSON.stringify(props.saved);
  // A fresh answer from the daemon (after a save or a refresh) replaces the form.
  useEffect(() => setForm(JSON.parse(serverValue) as OidcSettings), [serverValue]);

  const save = () =>
    submit(
      ZOidcSettings,
      formToOidc(form),
      async (checked) => {
        const r = await call(safeRoutes.putOidc, { body: checked }, { silent: true });
        pushNotice(r.msg || safeText('saved'), 'green');
        await queryClient.invalidateQueries({ queryKey: ['safe', 'oidc'] });
      },
      (checked) => secretAgain(checked, props.saved),
    );

  const text = (k: TextKey, description: string | undefined, placeholder?: string) => (
    <TextInput
      label={safeText(`sso.${k}`)}
      description={description}
      placeholder={placeholder}
      value={form[k]}
      onChange={(e) => setForm({ ...form, [k]: e.currentTarget.value })}
      data-testid={`safe-sso-${k}`}
    />
  );
  const list = (k: ListKey) => (
    <TagsInput
      label={safeText(`sso.${k}`)}
      description={safeText(`sso.${k}Hint`)}
      value={form[k]}
      onChange={(v) => setForm({ ...form, [k]: v })}
      clearable
      data-testid={`safe-sso-${k}`}
    />
  );

  return (
    <SettingsSection testid="safe-sso" prefix="safe-sso" texts="sso" onSave={() => void save()} busy={busy} error={error}>
      <Stack gap="md">
        <Switch
          label={safeText('sso.enable')}
          description={safeText('sso.enableHint')}
          checked={form.enable}
          onChange={(e) => setForm({ ...form, enable: e.currentTarget.checked })}
          data-testid="safe-sso-enable"
        />
        <SimpleGrid cols={{ base: 1, sm: 2 }}>
          {text('issuer', safeText('sso.issuerHint'), 'https://auth.example.com/application/o/lucky/')}
          {text('clientId', undefined)}
          <PasswordInput
            label={safeText('sso.clientSecret')}
            description={safeText('sso.clientSecretHint', { mask: SECRET_MASK })}
            value={form.clientSecret}
            onChange={(e) => setForm({ ...form, clientSecret: e.currentTarget.value })}
            autoComplete="new-password"
            data-testid="safe-sso-clientSecret"
          />
          {text('label', safeText('sso.labelHint', { label: form.label.trim() || DEFAULTS.label }), DEFAULTS.label)}
          {text('usernameClaim', safeText('sso.usernameClaimHint'), DEFAULTS.usernameClaim)}
          {text('groupsClaim', safeText('sso.groupsClaimHint'), DEFAULTS.groupsClaim)}
          {list('scopes')}
          {list('adminGroups')}
        </SimpleGrid>
        <SsoGroupsEditor value={form.portalGroups} onChange={(portalGroups) => setForm({ ...form, portalGroups })} />
      </Stack>
    </SettingsSection>
  );
}

export function SsoSection() {
  const oidc = useQuery(oidcQuery());
  const saved = oidc.data?.oidc;
  return (
    <Stack>
      {oidc.isError && !saved ? <Alert color="red">{safeText('loadFailed')}</Alert> : !saved ? <Skeleton h={320} /> : <SsoForm saved={saved} />}
      <SsoRedirects />
    </Stack>
  );
}
