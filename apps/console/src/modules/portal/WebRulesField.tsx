/** The web rules a portal user may open, picked by name from the web module's rules (kept by key). */
import { MultiSelect } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { ruleChoices } from './form';
import { portalText as t } from './i18n';
import { webRulesQuery } from './queries';

export function WebRulesField(props: { value: string[]; onChange: (keys: string[]) => void; error: string | undefined }) {
  const rules = useQuery(webRulesQuery()).data?.list;
  const data = ruleChoices(rules, props.value, t);
  return (
    <MultiSelect
      label={t('rules')}
      description={t('rulesHint')}
      data={data}
      value={props.value}
      onChange={props.onChange}
      placeholder={props.value.length === 0 ? t('rulesAll') : undefined}
      nothingFoundMessage={t('rulesNone')}
      error={props.error}
      searchable
      clearable
      data-testid="portal-rules"
    />
  );
}
