// The room list beside the name field: the arena's open rooms from the matchmaker of the page's own
// server (`GET /rooms?mode=arena`, Protocol/MATCHMAKER.md section 3), refreshed every few seconds,
// each with a play button (joinById), and a quick play button (joinOrCreate "arena"). A server
// without a matchmaker answers 404: the list and quick play stay hidden, and the page plays as before.
import { MatchmakerError } from '@tickwire/client';

/** @typedef {import('@tickwire/client').RoomListing} RoomListing */
/** @typedef {{kind: 'quick'} | {kind: 'room', room: string}} RoomChoice What the player picked. */

/**
 * One listing in words: `arena-0a1b2c3d  3/16  map=dust`.
 * @param {RoomListing} listing
 * @returns {{room: string, players: string, details: string, isFull: boolean}}
 */
export function listingText(listing) {
  const details = Object.entries(listing.metadata).map(([key, value]) => `${key}=${value}`).join(' ');
  return { room: listing.room, players: `${listing.clients}/${listing.capacity}`, details, isFull: listing.clients >= listing.capacity };
}

/** The lobby's part of the page: asks for the listings and shows them. */
export class RoomList {
  /**
   * @param {import('@tickwire/client').Matchmaker} matchmaker The page's server's matchmaker.
   * @param {HTMLElement} section Shown once the server has a matchmaker; holds `list` and `quickPlay`.
   * @param {HTMLElement} list Where the rooms go, one `li` each.
   * @param {HTMLButtonElement} quickPlay
   * @param {(choice: RoomChoice) => void} onChoice Called when the player picks a room or quick play.
   * @param {number} [interval] Seconds between refreshes (default 3).
   */
  constructor(matchmaker, section, list, quickPlay, onChoice, interval = 3) {
    this.matchmaker = matchmaker;
    this.section = section;
    this.list = list;
    this.onChoice = onChoice;
    this.interval = interval;
    /** @type {'unknown' | 'present' | 'absent'} Whether the server answers the matchmaker's requests (404 to /rooms: absent). */
    this.matchmakerPresence = 'unknown';
    /** @type {RoomListing[]} */
    this.rooms = [];
    /** @type {string | undefined} Why the last refresh failed, shown in the list. */
    this.lastError = undefined;
    this.refreshes = 0;
    /** @type {ReturnType<typeof setTimeout> | undefined} */
    this.timer = undefined;
    quickPlay.addEventListener('click', (event) => {
      event.preventDefault();
      this.onChoice({ kind: 'quick' });
    });
  }

  /** Refreshes now and every `interval` seconds, until `stop` or a 404. */
  start() {
    this.stop();
    const run = async () => {
      await this.refresh();
      if (this.matchmakerPresence !== 'absent' && this.timer !== undefined) this.timer = setTimeout(run, this.interval * 1000);
    };
    this.timer = setTimeout(run, 0);
  }

  stop() {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** Asks for the listings once and shows them, or hides the list for good on a 404. */
  async refresh() {
    this.refreshes += 1;
    try {
      this.rooms = await this.matchmaker.rooms('arena');
      this.lastError = undefined;
      this.matchmakerPresence = 'present';
    } catch (error) {
      if (error instanceof MatchmakerError && error.status === 404) {
        // A server without a matchmaker (MATCHMAKER.md section 1 names /rooms: 404 means none answers it).
        this.matchmakerPresence = 'absent';
        this.section.hidden = true;
        this.stop();
        return;
      }
      this.lastError = error instanceof Error ? error.message : String(error);
    }
    if (this.matchmakerPresence === 'present') this.section.hidden = false;
    this.show();
  }

  /** Draws the list: one row per room, with its play button (none for a full room). */
  show() {
    const document = this.list.ownerDocument;
    const rows = this.rooms.map((listing) => {
      const text = listingText(listing);
      const row = document.createElement('li');
      row.dataset.room = listing.room;
      const label = document.createElement('span');
      label.textContent = `${text.room}  ${text.players}${text.details ? `  ${text.details}` : ''}`;
      const play = document.createElement('button');
      play.type = 'button';
      play.textContent = text.isFull ? 'full' : 'play';
      play.disabled = text.isFull;
      play.addEventListener('click', () => this.onChoice({ kind: 'room', room: listing.room }));
      row.append(label, ' ', play);
      return row;
    });
    if (rows.length === 0) {
      const empty = document.createElement('li');
      empty.textContent = this.lastError ? `no rooms: ${this.lastError}` : 'no open rooms yet: quick play makes one';
      rows.push(empty);
    }
    this.list.replaceChildren(...rows);
  }

  /** @returns {{matchmaker: string, rooms: RoomListing[], error: string | undefined, refreshes: number}} For tests. */
  snapshot() {
    return { matchmaker: this.matchmakerPresence, rooms: this.rooms, error: this.lastError, refreshes: this.refreshes };
  }
}
