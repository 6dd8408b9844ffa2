/**
 * The About page's versions card in jsdom: it asks the daemon (same origin) and nobody else, says
 * that nothing is fetched while no feed is set, and shows what the daemon read once one is.
 */
import type { InfoFeedState } from '@lucky/contracts';
import { fireEvent, screen, waitFor } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { shellText } from '../../i18n';
import { renderWithProviders, testQueryClient, withDomShims } from '../../testing/dom';
import { InfoFeedCard } from './InfoFeedCard';

withDomShims();

const OFF: InfoFeedState = { url: '', state: 'off', fetchedAt: 0, latestVersion: '', newer: false, notesUrl: '', messages: [], error: '' };

/** The daemon as the card sees it: `/api/infofeed` answers `feeds` in turn (the last one stays). */
function daemon(...feeds: InfoFeedState[]) {
  const asked: string[] = [];
  const spy = vi.fn((url: string) => {
    asked.push(url);
    const feed = feeds.length > 1 ? feeds.shift()! : feeds[0]!;
    if (new URL(url).pathname !== '/api/infofeed') return Promise.resolve(new Response(JSON.stringify({ ret: 3, msg: 'not here' })));
    return Promise.resolve(new Response(JSON.stringify({ ret: 0, feed })));
  });
  vi.stubGlobal('fetch', spy);
  return asked;
}

describe('InfoFeedCard', () => {
  it('with no feed set, says nothing is fetched, and asks only the daemon', async () => {
    const asked = daemon(OFF);
    renderWithProviders(<InfoFeedCard version="2.0.0" />, testQueryClient());
    expect((await screen.findByTestId('about-outside')).textContent).toContain(shellText('about.outsideNone'));
    expect(screen.getByTestId('about-version').textContent).toBe('2.0.0');
    expect(screen.queryByTestId('about-latest')).toBeNull();
    expect(screen.queryByTestId('about-feed-refresh')).toBeNull();
    expect(asked.map((u) => new URL(u).origin)).toEqual([window.location.origin]);
    expect(new URL(asked[0]!).pathname).toBe('/api/infofeed');
  });

  it('shows what the daemon read, where from, and reads again on request', async () => {
    const url = 'https://feed.example.invalid/lucky.json';
    const read: InfoFeedState = {
      url,
      state: 'ok',
      fetchedAt: Date.UTC(2026, 10, 27, 20, 0),
      latestVersion: '2.1.0',
      newer: true,
      notesUrl: 'https://feed.example.invalid/notes/2.1.0',
      messages: [{ level: 'warning', text: 'Please update', url: 'https://feed.example.invalid/advisory' }],
      error: '',
    };
    const asked = daemon(read, { ...read, latestVersion: '2.0.0', newer: false, messages: [] });
    renderWithProviders(<InfoFeedCard version="2.0.0" />, testQueryClient());
    expect((await screen.findByTestId('about-latest')).textContent).toBe('2.1.0');
    expect(screen.getByTestId('about-newer').textContent).toBe(shellText('about.newer'));
    expect(screen.getByTestId('about-notes').getAttribute('href')).toBe(read.notesUrl);
    expect(screen.getByTestId('about-feed-message').textContent).toContain('Please update');
    expect(screen.getByTestId('about-outside').textContent).toContain(shellText('about.outsideFeed', { url }));

    fireEvent.click(screen.getByTestId('about-feed-refresh'));
    await waitFor(() => expect(screen.getByTestId('about-newer').textContent).toBe(shellText('about.upToDate')));
    expect(screen.queryByTestId('about-feed-message')).toBeNull();
    expect(asked).toHaveLength(2);
    expect(new URL(asked[0]!).searchParams.get('refresh')).toBeNull();
    expect(new URL(asked[1]!).searchParams.get('refresh')).toBe('1');
    expect(asked.every((u) => new URL(u).origin === window.location.origin)).toBe(true);
  });

  it('says why the feed could not be read', async () => {
    daemon({ ...OFF, url: 'http://192.0.2.1/feed', state: 'failed', fetchedAt: 1, error: 'HTTP 500' });
    renderWithProviders(<InfoFeedCard version="2.0.0" />, testQueryClient());
    expect((await screen.findByTestId('about-feed-error')).textContent).toBe(shellText('about.feedFailed', { error: 'HTTP 500' }));
    expect(screen.queryByTestId('about-latest')).toBeNull();
  });
});
