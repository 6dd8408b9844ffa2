/** The NAT type test (RFC 5780): a server and a local address, both optional; mapping, filtering, the verdict and the steps. */
import { Button, Group, List, Modal, Stack, Table, Text, TextInput } from '@mantine/core';
import { ZStunNatTestRequest, stunRoutes, type RouteBody } from '@lucky/contracts';
import { useState } from 'react';
import { call } from '../../api';
import { mono } from '../../kit/fields/styles';
import { TestResult, useTestRun } from '../../kit/form/TestRun';
import { behaviourText } from './form';
import { stunText } from './i18n';

type Body = RouteBody<typeof stunRoutes.natTest>;

export function NatTestButton(props: { enabled: boolean }) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <Button variant="default" onClick={() => setOpen(true)} disabled={!props.enabled} data-testid="stun-nattest-open">
        {stunText('natTest')}
      </Button>
      <Modal opened={open} onClose={() => setOpen(false)} title={stunText('natTestTitle')} size="lg" data-testid="stun-nattest">
        {open && <NatTest />}
      </Modal>
    </>
  );
}

function NatTest() {
  const [server, setServer] = useState('');
  const [localHost, setLocalHost] = useState('');
  const test = useTestRun(ZStunNatTestRequest, (body: Body) => call(stunRoutes.natTest, { body }, { silent: true }));
  const o = test.outcome;
  return (
    <Stack gap="sm">
      <Group grow align="flex-start">
        <TextInput label={stunText('natServer')} description={stunText('natServerHint')} placeholder="stun.example.com:3478" value={server} onChange={(e) => setServer(e.currentTarget.value)} styles={mono} data-testid="stun-nattest-server" />
        <TextInput label={stunText('natLocal')} description={stunText('natLocalHint')} placeholder="192.168.1.2" value={localHost} onChange={(e) => setLocalHost(e.currentTarget.value)} styles={mono} data-testid="stun-nattest-local" />
      </Group>
      <Group justify="space-between">
        <Text fz="xs" c="dimmed">
          {stunText('natTestHint')}
        </Text>
        <Button onClick={() => test.run({ server: server.trim(), localHost: localHost.trim() })} loading={test.pending} data-testid="stun-nattest-run">
          {stunText('natRun')}
        </Button>
      </Group>
      {o && o.kind !== 'answered' && (
        <TestResult ok={false} testId="stun-nattest-result">
          {o.message}
        </TestResult>
      )}
      {o?.kind === 'answered' && (
        <Stack gap="xs" data-testid="stun-nattest-result">
          <TestResult ok={o.data.result.mapping === 'endpointIndependent'} testId="stun-nattest-verdict">
            {o.data.result.verdict}
          </TestResult>
          <Table withRowBorders={false} fz="sm">
            <Table.Tbody>
              {[
                [stunText('natUsedServer'), o.data.result.server],
                [stunText('natPublic'), o.data.result.publicAddr ?? '-'],
                [stunText('natMapping'), behaviourText(o.data.result.mapping)],
                [stunText('natFiltering'), behaviourText(o.data.result.filtering)],
              ].map(([k, v]) => (
                <Table.Tr key={k}>
                  <Table.Td c="dimmed" w={160}>
                    {k}
                  </Table.Td>
                  <Table.Td style={{ fontFamily: 'monospace' }}>{v}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
          {o.data.result.steps.length > 0 && (
            <List size="xs" withPadding data-testid="stun-nattest-steps">
              {o.data.result.steps.map((s, i) => (
                <List.Item key={i}>{s}</List.Item>
              ))}
            </List>
          )}
        </Stack>
      )}
    </Stack>
  );
}
