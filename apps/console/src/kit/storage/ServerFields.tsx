/** The first fields of a storage server's form (WebDAV, FTP): its name and switch, where it listens. */
import { AddressPortFields } from '../fields/AddressPortFields';
import { NameAndSwitch } from '../fields/NameAndSwitch';
import { bindFields } from '../form/bindFields';
import type { Num } from '../form/values';

export interface ServerIdentity {
  name: string;
  enable: boolean;
  address: string;
  port: Num;
}

export function ServerFields(props: {
  form: ServerIdentity;
  set: (change: Partial<ServerIdentity>) => void;
  err: (field: string) => string | undefined;
  text: (id: 'name' | 'enable' | 'address' | 'addressHint' | 'port') => string;
  /** What the address field shows when empty: where the server listens then. */
  anyAddress: string;
  testPrefix: string;
}) {
  const { text, testPrefix: t } = props;
  const b = bindFields(props.form, props.set, props.err);
  return (
    <>
      <NameAndSwitch
        name={{ label: text('name'), withAsterisk: true, ...b.text('name'), 'data-testid': `${t}-name` }}
        enable={{ label: text('enable'), ...b.check('enable'), 'data-testid': `${t}-enable` }}
      />
      <AddressPortFields
        address={{ label: text('address'), description: text('addressHint'), placeholder: props.anyAddress, ...b.text('address'), 'data-testid': `${t}-address` }}
        port={{ label: text('port'), withAsterisk: true, ...b.number('port'), 'data-testid': `${t}-port` }}
      />
    </>
  );
}
