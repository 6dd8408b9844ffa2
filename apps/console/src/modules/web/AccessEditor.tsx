/** Access settings of a rule or a sub rule, each in its own fold: basic auth, Lucky login, forward auth, IP and UA filters, cache, CORS, robots.txt. */
import { Accordion, Badge, Group, Stack, Switch, TextInput } from '@mantine/core';
import { DEFAULT_CORS_METHODS } from '@lucky/contracts';
import type { ReactNode } from 'react';
import { bindFields } from '../../kit/form/bindFields';
import { FilterListEditor } from '../../kit/fields/FilterListEditor';
import { LinesInput } from '../../kit/fields/LinesInput';
import { mono } from '../../kit/fields/styles';
import { WholeNumberInput } from '../../kit/fields/WholeNumberInput';
import { BasicAuthUsers } from './BasicAuthUsers';
import { FILTER_MODES, type AccessForm } from './form';
import { ForwardAuthFields } from './ForwardAuthFields';
import { webText } from './i18n';
import { PortalLoginFields } from './PortalLoginFields';

type ErrorAt = (field: string) => string | undefined;
type Section = keyof AccessForm;

function Fold(props: { value: Section; title: string; badge: ReactNode; testId: string; children: ReactNode }) {
  return (
    <Accordion.Item value={props.value}>
      <Accordion.Control data-testid={`${props.testId}-${props.value}`}>
        {props.title}
        {props.badge}
      </Accordion.Control>
      <Accordion.Panel>{props.children}</Accordion.Panel>
    </Accordion.Item>
  );
}

const badge = (text: string, color?: string) => (
  <Badge size="xs" variant="light" color={color} ml={6} tt="none">
    {text}
  </Badge>
);
/** "On" on the fold of a part that is switched on. */
const onBadge = (on: boolean) => (on ? badge(webText('on'), 'green') : null);
/** The filter's mode on its fold while it filters. */
const modeBadge = (mode: AccessForm['ipFilter']['mode']) => (mode !== 'off' ? badge(webText(`mode.${mode}`)) : null);

export function AccessEditor(props: { value: AccessForm; onChange: (v: AccessForm) => void; errorAt: ErrorAt; open: string[]; onOpen: (v: string[]) => void; testId: string }) {
  const a = props.value;
  const tid = props.testId;
  const set = <K extends Section>(k: K, patch: Partial<AccessForm[K]>) => props.onChange({ ...a, [k]: { ...a[k], ...patch } });
  const bind = <K extends Section>(k: K) => bindFields(a[k], (patch) => set(k, patch), props.errorAt, `${k}.`);
  const auth = bind('basicAuth');
  const cache = bind('cache');
  const cors = bind('cors');
  const robots = bind('robots');
  const filter = (k: 'ipFilter' | 'uaFilter', which: 'ip' | 'ua') => (
    <FilterListEditor
      modes={FILTER_MODES.map((m) => ({ value: m, label: webText(`mode.${m}`) }))}
      mode={a[k].mode}
      onMode={(mode) => set(k, { mode })}
      list={a[k].list}
      onList={(list) => set(k, { list })}
      listLabel={webText(`${which}List`)}
      hint={webText(`${which}ListHint`)}
      error={props.errorAt(k)}
      testIds={{ mode: `${tid}-${which}-mode`, list: `${tid}-${which}-list` }}
    />
  );

  return (
    <Accordion multiple value={props.open} onChange={props.onOpen} variant="contained" data-testid={tid}>
      <Fold value="basicAuth" title={webText('basicAuth')} badge={onBadge(a.basicAuth.enable)} testId={tid}>
        <Stack gap="xs">
          <Group align="flex-end">
            <Switch label={webText('enable')} {...auth.check('enable')} data-testid={`${tid}-auth-enable`} />
            <TextInput label={webText('realm')} {...auth.text('realm')} />
          </Group>
          <BasicAuthUsers users={a.basicAuth.users} onChange={(users) => set('basicAuth', { users })} errorAt={props.errorAt} testId={tid} />
        </Stack>
      </Fold>
      <Fold value="portal" title={webText('portal')} badge={onBadge(a.portal.enable)} testId={tid}>
        <PortalLoginFields value={a.portal} onChange={(patch) => set('portal', patch)} errorAt={props.errorAt} testId={tid} />
      </Fold>
      <Fold value="forwardAuth" title={webText('forwardAuth')} badge={onBadge(a.forwardAuth.enable)} testId={tid}>
        <ForwardAuthFields value={a.forwardAuth} onChange={(patch) => set('forwardAuth', patch)} errorAt={props.errorAt} testId={tid} />
      </Fold>
      <Fold value="ipFilter" title={webText('ipFilter')} badge={modeBadge(a.ipFilter.mode)} testId={tid}>
        {filter('ipFilter', 'ip')}
      </Fold>
      <Fold value="uaFilter" title={webText('uaFilter')} badge={modeBadge(a.uaFilter.mode)} testId={tid}>
        {filter('uaFilter', 'ua')}
      </Fold>
      <Fold value="cache" title={webText('cache')} badge={onBadge(a.cache.enable)} testId={tid}>
        <Stack gap="xs">
          <Switch label={webText('enable')} description={webText('cacheHint')} {...cache.check('enable')} />
          {a.cache.enable && (
            <Group grow align="flex-start">
              <WholeNumberInput thousandSeparator="," label={webText('cacheMax')} {...cache.number('maxBytes')} />
              <WholeNumberInput thousandSeparator="," label={webText('cacheEntryMax')} {...cache.number('maxEntryBytes')} />
              <WholeNumberInput label={webText('cacheTtl')} {...cache.number('ttlSeconds')} />
            </Group>
          )}
        </Stack>
      </Fold>
      <Fold value="cors" title={webText('cors')} badge={onBadge(a.cors.enable)} testId={tid}>
        <Stack gap="xs">
          <Group>
            <Switch label={webText('enable')} {...cors.check('enable')} data-testid={`${tid}-cors-enable`} />
            {a.cors.enable && <Switch label={webText('corsCredentials')} {...cors.check('credentials')} />}
          </Group>
          {a.cors.enable && (
            <>
              <LinesInput label={webText('corsOrigins')} description={webText('corsOriginsHint')} minRows={1} maxRows={6} {...cors.text('origins')} />
              <Group grow align="flex-start">
                <TextInput
                  label={webText('corsMethods')}
                  description={webText('corsMethodsHint', { methods: DEFAULT_CORS_METHODS.join(', ') })}
                  {...cors.text('methods')}
                  styles={mono}
                  data-testid={`${tid}-cors-methods`}
                />
                <TextInput label={webText('corsHeaders')} {...cors.text('headers')} styles={mono} />
                <WholeNumberInput label={webText('corsMaxAge')} min={0} max={86400} {...cors.number('maxAgeSeconds')} style={{ flexGrow: 0, minWidth: 150 }} />
              </Group>
            </>
          )}
        </Stack>
      </Fold>
      <Fold value="robots" title={webText('robots')} badge={onBadge(a.robots.enable)} testId={tid}>
        <Stack gap="xs">
          <Switch label={webText('enable')} {...robots.check('enable')} />
          {a.robots.enable && <LinesInput label={webText('robotsText')} minRows={3} maxRows={12} {...robots.text('text')} />}
        </Stack>
      </Fold>
    </Accordion>
  );
}
