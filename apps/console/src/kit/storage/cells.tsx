/** Cells of a storage service's rule list (WebDAV, FTP): what it mounts, the address to copy, its traffic. */
import { CopyButton, Stack, Text, Tooltip, UnstyledButton } from '@mantine/core';
import type { StorageMount } from '@lucky/contracts';
import { useQuery } from '@tanstack/react-query';
import { formatBytes } from '../../lib/helpers';
import { RefusedFigure, RuleFigures, type Figure } from '../rule-list/RuleFigures';
import { kitText } from '../texts';
import { mountLines } from './mounts';
import { storageChoicesQuery } from './queries';

const mono = { fontFamily: 'monospace' } as const;

/** `testPrefix` is the module's data-testid prefix (`webdav` gives `webdav-row-mounts`…). */
export function MountsCell({ mounts, testPrefix }: { mounts: readonly StorageMount[]; testPrefix: string }) {
  const storages = useQuery(storageChoicesQuery()).data?.list;
  return (
    <Stack gap={0} data-testid={`${testPrefix}-row-mounts`}>
      {mountLines(mounts, storages).map((line) => (
        <Text key={line} fz="xs" style={{ wordBreak: 'break-all' }}>
          {line}
        </Text>
      ))}
    </Stack>
  );
}

/** The address a client connects to, copied on click. */
export function UrlCell({ url, testPrefix }: { url: string; testPrefix: string }) {
  if (!url) return <Text fz="xs" c="dimmed" data-testid={`${testPrefix}-url`} data-url="">-</Text>;
  return (
    <CopyButton value={url}>
      {({ copied, copy }) => (
        <Tooltip label={copied ? kitText('copied') : kitText('copyHint')} withArrow>
          <UnstyledButton onClick={copy} fz="sm" style={{ ...mono, wordBreak: 'break-all' }} data-testid={`${testPrefix}-url`} data-url={url}>
            {url}
          </UnstyledButton>
        </Tooltip>
      )}
    </CopyButton>
  );
}

/** What every storage service counts; each adds what it counts besides (`activity`). */
export interface Traffic {
  connections: number;
  bytesIn: number;
  bytesOut: number;
  /** Refused: failed or locked-out logins, permissions, paths outside a storage… */
  denied: number;
}

export function trafficText(s: Traffic) {
  return { bytesIn: formatBytes(s.bytesIn), bytesOut: formatBytes(s.bytesOut) };
}

export function TrafficCell(props: {
  figures: Traffic;
  /** Beside the connections: WebDAV's requests, FTP's logged-in sessions. */
  activity: Figure;
  /** A line of its own under them, when the service counts more (SFTP's requests and files). */
  more?: Figure[];
  quiet: boolean;
  quietText: string;
  /** What counts as denied, as this service refuses. */
  deniedHint: string;
  testPrefix: string;
}) {
  const { figures: s, testPrefix: t } = props;
  const f = trafficText(s);
  return (
    <RuleFigures
      quiet={props.quiet}
      quietText={props.quietText}
      lines={[
        [{ text: kitText('connections', { n: s.connections }), testId: `${t}-fig-connections`, value: s.connections }, props.activity],
        ...(props.more?.length ? [props.more] : []),
        [
          { text: `↑ ${kitText('bytesIn', { v: f.bytesIn })}`, testId: `${t}-fig-in`, value: s.bytesIn },
          { text: `↓ ${kitText('bytesOut', { v: f.bytesOut })}`, testId: `${t}-fig-out`, value: s.bytesOut },
        ],
      ]}
    >
      {s.denied > 0 && (
        <Tooltip label={props.deniedHint}>
          <div>
            <RefusedFigure count={s.denied} text={kitText('denied', { n: s.denied })} testId={`${t}-fig-denied`} />
          </div>
        </Tooltip>
      )}
    </RuleFigures>
  );
}
