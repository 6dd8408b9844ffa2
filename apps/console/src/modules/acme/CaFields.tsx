/**
 * Where a certificate is ordered: the CA (a preset or a custom directory with its root), the key
 * type, the contact e-mail and External Account Binding. A certificate rule's ACME part and the
 * settings' automatic certificates both show it; test ids `<testPrefix>-ca`, `…-keytype`…
 */
import { Group, Select, TextInput } from '@mantine/core';
import { ACME_EAB_REQUIRED, type AcmeAuto } from '@lucky/contracts';
import { bindFields } from '../../kit/form/bindFields';
import { PemInput } from '../../kit/fields/PemInput';
import { SecretInput } from '../../kit/fields/SecretInput';
import { mono } from '../../kit/fields/styles';
import { acmeChoices as choices, acmeText as t } from './i18n';

export type CaForm = Pick<AcmeAuto, 'ca' | 'directoryUrl' | 'caRoot' | 'email' | 'eabKid' | 'eabHmac' | 'keyType'>;

const CAS = ['letsencrypt', 'letsencryptStaging', 'zerossl', 'google', 'custom'] as const;
const KEY_TYPES = ['ec256', 'rsa2048', 'rsa4096'] as const;

export function CaFields(props: { value: CaForm; set: (patch: Partial<CaForm>) => void; errorAt?: (field: string) => string | undefined; testPrefix: string }) {
  const v = props.value;
  const err = props.errorAt ?? (() => undefined);
  const b = bindFields(v, props.set, err);
  const id = (field: string) => `${props.testPrefix}-${field}`;
  return (
    <>
      <Group grow align="flex-start">
        <Select label={t('ca')} data={choices('ca', CAS)} {...b.choice('ca')} allowDeselect={false} data-testid={id('ca')} />
        <Select label={t('keyType')} data={choices('keyType', KEY_TYPES)} {...b.choice('keyType')} allowDeselect={false} data-testid={id('keytype')} />
      </Group>
      {v.ca === 'custom' && (
        <>
          <TextInput label={t('directoryUrl')} placeholder="https://ca.example.lan/acme/acme/directory" {...b.text('directoryUrl')} styles={mono} data-testid={id('directory')} />
          <PemInput label={t('caRoot')} uploadLabel={t('upload')} placeholder={t('caRootHint')} value={v.caRoot} onValue={(caRoot) => props.set({ caRoot })} error={err('caRoot')} minRows={2} testId={id('caroot')} />
        </>
      )}
      <TextInput label={t('email')} description={t('emailHint')} {...b.text('email')} data-testid={id('email')} />
      {/* EAB only where a CA asks for it, or once filled in. */}
      {(ACME_EAB_REQUIRED.includes(v.ca) || v.ca === 'custom' || v.eabKid !== '') && (
        <Group grow align="flex-start">
          <TextInput label={t('eabKid')} description={t('eabHint')} {...b.text('eabKid')} styles={mono} data-testid={id('eabkid')} />
          <SecretInput label={t('eabHmac')} value={v.eabHmac} onChange={(eabHmac) => props.set({ eabHmac })} error={err('eabHmac')} testId={id('eabhmac')} />
        </Group>
      )}
    </>
  );
}
