/**
 * The typed services between modules: one interface per service, in this folder, so that a module
 * asks for what it needs by name instead of importing another module's files. A module declares
 * the services it needs and provides (defineModule); the host builds them in dependency order.
 */
import type { ActionsService } from './actions.js';
import type { AuditService } from './audit.js';
import type { BackupsService } from './backups.js';
import type { CertificateOrdersService } from './certificateOrders.js';
import type { CertificatesService } from './certificates.js';
import type { DnsProvidersService } from './dnsProviders.js';
import type { HttpChallengesService } from './httpChallenges.js';
import type { PortMappingsService } from './portMappings.js';
import type { PortalService } from './portal.js';
import type { OidcService } from './oidc.js';
import type { RulesService } from './rules.js';
import type { StunAddressesService } from './stunAddresses.js';
import type { StoragesService } from './storages.js';
import type { WebhooksService } from './webhooks.js';

export interface ServiceMap {
  actions: ActionsService;
  certificates: CertificatesService;
  certificateOrders: CertificateOrdersService;
  webhooks: WebhooksService;
  dnsProviders: DnsProvidersService;
  storages: StoragesService;
  backups: BackupsService;
  httpChallenges: HttpChallengesService;
  audit: AuditService;
  portMappings: PortMappingsService;
  stunAddresses: StunAddressesService;
  rules: RulesService;
  portal: PortalService;
  oidc: OidcService;
}

export type ServiceName = keyof ServiceMap;

export type { ActionRule, ActionsService } from './actions.js';
export type { AuditRecord, AuditService } from './audit.js';
export type { BackupsService, BackupWritten } from './backups.js';
export type { DdnsTaskRef, DnsClient, DnsClientOptions, DnsProviderListing, DnsProvidersService, DnsRecord, PublishedRecord } from './dnsProviders.js';
export type { WebhookCallOptions, WebhookMessage, WebhookResult, WebhooksService, WebhookValues } from './webhooks.js';
export type { CertificatesService, StoredCertificate } from './certificates.js';
export type { CertificateOrder, CertificateOrdersService } from './certificateOrders.js';
export type { HttpChallengesService } from './httpChallenges.js';
export type { ModuleRuleRead, OwnerRef, RulesService } from './rules.js';
export type { LoginAttempt, ResolvedPath, StorageGrant, StorageOp, StoragePrincipal, StoragesService } from './storages.js';
export type { PortMapping, PortMappingRequest, PortMappingState, PortMappingsService } from './portMappings.js';
export type { StunAddress, StunAddressesService } from './stunAddresses.js';
export type { PortalCookie, PortalPass, PortalService, PortalSignIn, PortalSignInRequest, PortalSsoFinish, PortalSsoStart } from './portal.js';
export type { OidcService, SsoIdentity } from './oidc.js';
