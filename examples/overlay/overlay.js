// The overlay's only script: follows GET /events (server-sent events, read by the browser's own
// EventSource) and shows the newest supporter who joined. No framework, no build step, no secret:
// the event stream is public, like the REST lists it mirrors.
//
// Query parameters of the page:
//   ?platform=membership | video   only that platform's newcomers (default: both)

const root = document.getElementById('overlay');
const nameLine = document.getElementById('name');
const detailLine = document.getElementById('detail');

const PLATFORM_NOUNS = { membership: 'patron', video: 'channel member' };

/** The stream this page follows: JOINED supporter events only, of one platform or both. */
function eventsUrl(pageQuery) {
  const query = new URLSearchParams({ types: 'supporter', changes: 'joined' });
  const platform = pageQuery.get('platform');
  if (platform === 'membership' || platform === 'video') query.set('platform', platform);
  return `/events?${query}`;
}

/** "$5.00 a month" style, without assuming a currency: amounts are cents. */
function amountText(cents) {
  return typeof cents === 'number' ? `${(cents / 100).toFixed(2)} a month` : '';
}

/** Shows one supporter. Names come from the platforms: written as text, never as HTML. */
function show(supporter) {
  nameLine.textContent = supporter.name ?? 'A new supporter';
  const noun = PLATFORM_NOUNS[supporter.platform] ?? 'supporter';
  const amount = amountText(supporter.level?.amount_cents);
  detailLine.textContent = amount === '' ? `New ${noun}` : `New ${noun} · ${amount}`;
  // Restart the arrival animation for every newcomer.
  root.classList.remove('arrived');
  void root.offsetWidth;
  root.classList.add('arrived');
}

// EventSource reconnects by itself and sends Last-Event-ID, so a newcomer who joined during a
// network blip still appears once the stream is back.
const source = new EventSource(eventsUrl(new URLSearchParams(location.search)));
source.addEventListener('open', () => {
  root.dataset.state = 'live';
});
source.addEventListener('error', () => {
  root.dataset.state = source.readyState === EventSource.CLOSED ? 'closed' : 'reconnecting';
});
source.addEventListener('supporter', (message) => {
  show(JSON.parse(message.data));
});
