/** The certificate form in jsdom: a pasted certificate edited shows its key's mask, never the rule's id, and sends it back as `privateKey`. */
import { SECRET_MASK, ZAcmeRule } from '@lucky/contracts';
import { fireEvent, screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { listed, renderRuleForm, withDomShims } from '../../testing/dom';
import { RuleForm } from './RuleForm';
import { acmeRules } from './ruleModule';

withDomShims();

const CERT = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';

describe('the certificate form', () => {
  it("edits a pasted certificate: the private key box holds the key's mask (not the rule's key), and the save sends it back as privateKey", async () => {
    const saved = ZAcmeRule.parse({ name: 'pasted', source: 'pem', cert: CERT, privateKey: SECRET_MASK });
    const fetchSpy = renderRuleForm(acmeRules, RuleForm, listed(saved, { certificate: null, renewAt: null }), () => undefined);
    const key = (await screen.findByTestId('acme-key')) as HTMLTextAreaElement;
    expect(key.value).toBe(SECRET_MASK);
    fireEvent.click(screen.getByTestId('acme-save'));
    await waitFor(() => expect(fetchSpy).toHaveBeenCalled());
    const [url, init] = fetchSpy.mock.calls[0]!;
    expect(String(url)).toContain('/api/acme/rules/k1');
    expect(init?.method).toBe('PUT');
    const body = JSON.parse(String(init?.body)) as Record<string, unknown>;
    expect(body).toMatchObject({ name: 'pasted', source: 'pem', cert: CERT, privateKey: SECRET_MASK });
    expect(ZAcmeRule.safeParse(body).success).toBe(true);
  });
});
