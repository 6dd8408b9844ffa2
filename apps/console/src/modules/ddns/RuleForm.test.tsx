/** The task form in jsdom: easy mode hides the advanced fields, an empty domain list is refused without a call, a mask is sent back. */
import { DDNS_PROVIDERS, ddnsProviderListing, SECRET_MASK, ZDdnsTask, type DdnsTask } from '@lucky/contracts';
import { fireEvent, screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { listed, renderRuleForm, sentOnClick, withDomShims } from '../../testing/dom';
import { ddnsProvidersQuery } from './queries';
import { RuleForm } from './RuleForm';
import { ddnsRules } from './ruleModule';

withDomShims();

const sync = { status: 'waitingForSync' as const, ipv4: '', ipv6: '', lastCheck: null, lastSync: null, message: '', records: [] };
const providers = { ret: 0 as const, providers: DDNS_PROVIDERS.map((name) => ddnsProviderListing(name, 'zh_CN')), webhookPresets: {}, callbackPresets: {} };

const renderForm = (saved: DdnsTask | null) => renderRuleForm(ddnsRules, RuleForm, saved && listed(saved, { sync }), (qc) => qc.setQueryData(ddnsProvidersQuery().queryKey, providers));

const saved = ZDdnsTask.parse({
  name: 'cf',
  provider: 'cloudflare',
  domains: ['www.example.com'],
  credentials: { secret: SECRET_MASK },
}) as DdnsTask;

describe('the task form', () => {
  it('easy mode hides the advanced settings; customized shows them', async () => {
    renderForm(null);
    await screen.findByTestId('ddns-name');
    expect(screen.queryByTestId('ddns-advanced')).toBeNull();
    fireEvent.click(screen.getByText('自定义模式'));
    expect(await screen.findByTestId('ddns-advanced')).toBeTruthy();
    expect(screen.getByTestId('ddns-forcesync')).toBeTruthy();
  });

  it('refuses an empty domain list before any call, with the spec message on the field', async () => {
    const fetchSpy = renderForm(null);
    fireEvent.change(await screen.findByTestId('ddns-name'), { target: { value: 'x' } });
    fireEvent.change(screen.getByTestId('ddns-cred-secret'), { target: { value: 'token' } });
    fireEvent.click(screen.getByTestId('ddns-save'));
    expect((await screen.findByTestId('ddns-form-error-message')).textContent).toBe('域名列表不能为空');
    expect(screen.getByTestId('ddns-form-error-summary').textContent).toContain('domains');
    expect(screen.getByTestId('ddns-domains').getAttribute('aria-invalid')).toBe('true');
    expect(fetchSpy).not.toHaveBeenCalled();
  });

  it('an unchanged stored secret goes back as the mask', async () => {
    const fetchSpy = renderForm(saved);
    expect(((await screen.findByTestId('ddns-cred-secret')) as HTMLInputElement).value).toBe(SECRET_MASK);
    const body = await sentOnClick<DdnsTask>(fetchSpy, 'ddns-save', '/api/ddns/rules/k1', 'PUT');
    expect(body.credentials.secret).toBe(SECRET_MASK);
    expect(body.domains).toEqual(['www.example.com']);
  });
});

describe('the provider part of the form follows the provider descriptions', () => {
  it('lists the providers grouped by region', async () => {
    renderForm(null);
    fireEvent.click(await screen.findByTestId('ddns-provider'));
    for (const group of ['中国大陆服务商', '国际服务商', '通用协议']) expect(await screen.findByText(group)).toBeTruthy();
    expect(screen.getByText('阿里云 DNS')).toBeTruthy();
    expect(screen.getByText('RFC 2136 (TSIG)')).toBeTruthy();
  });

  it("shows the provider's own credential fields, secrets as password inputs, and its documentation", async () => {
    renderForm(ZDdnsTask.parse({ name: 'ns', provider: 'rfc2136', domains: ['example.com'], credentials: { id: 'k', secret: SECRET_MASK, server: '192.0.2.53' } }) as DdnsTask);
    const secret = (await screen.findByTestId('ddns-cred-secret')) as HTMLInputElement;
    expect(secret.type).toBe('password');
    expect(secret.value).toBe(SECRET_MASK);
    expect((screen.getByTestId('ddns-cred-id') as HTMLInputElement).value).toBe('k');
    expect((screen.getByTestId('ddns-cred-server') as HTMLInputElement).value).toBe('192.0.2.53');
    expect(screen.getByTestId('ddns-cred-algorithm')).toBeTruthy();
    expect(screen.getByText('TSIG 密钥名')).toBeTruthy();
    expect(screen.getByTestId('ddns-provider-docs').getAttribute('href')).toBe('https://www.rfc-editor.org/rfc/rfc2136');
    expect(screen.queryByTestId('ddns-cred-secret2')).toBeNull();
  });

  it('OVHcloud: the endpoint as a choice, the application secret and the consumer key both masked', async () => {
    renderForm(ZDdnsTask.parse({ name: 'ovh', provider: 'ovh', domains: ['example.com'], credentials: { server: 'ovh-eu', id: 'ak', secret: SECRET_MASK, secret2: SECRET_MASK } }) as DdnsTask);
    const consumer = (await screen.findByTestId('ddns-cred-secret2')) as HTMLInputElement;
    expect(consumer.type).toBe('password');
    expect(consumer.value).toBe(SECRET_MASK);
    expect((screen.getByTestId('ddns-cred-secret') as HTMLInputElement).type).toBe('password');
    expect((screen.getByTestId('ddns-cred-server') as HTMLInputElement).value).toBe('ovh-eu');
    expect(screen.getByText('Consumer Key')).toBeTruthy();
    expect(screen.getByText(/^Consumer Key 需授权 GET\/POST\/PUT\/DELETE \/domain\/zone\/\* · /)).toBeTruthy();
  });

  it('Azure DNS: tenant, subscription, application id and secret; an empty tenant is refused before any call', async () => {
    const fetchSpy = renderForm(null);
    fireEvent.change(await screen.findByTestId('ddns-name'), { target: { value: 'az' } });
    fireEvent.click(screen.getByTestId('ddns-provider'));
    fireEvent.click(await screen.findByText('Azure DNS'));
    for (const key of ['id2', 'id3', 'id', 'secret']) expect(await screen.findByTestId(`ddns-cred-${key}`)).toBeTruthy();
    fireEvent.change(screen.getByTestId('ddns-domains'), { target: { value: 'home.example.com' } });
    fireEvent.click(screen.getByTestId('ddns-save'));
    expect((await screen.findByTestId('ddns-form-error-message')).textContent).toBe('租户 ID不能为空');
    expect(fetchSpy).not.toHaveBeenCalled();
  });
});
