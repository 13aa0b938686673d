/** English template families about people and team rituals for the ingest benchmark corpus. */
import { CLOCK, EDITORS, EN_CITIES, MEETINGS, ROOMS, WEEKDAYS } from './memory-ingest-corpus-data.js';
import { type Family, fresh, pairs, pick, type Subject, slugify, take } from './memory-ingest-corpus-kit.js';

const personCity: Family = {
  id: 'person-city',
  lang: 'en',
  category: 'fact',
  subjects: (pools, rng, n) =>
    take(rng, pools.enPeople, n, 'people').map(
      ({ name: who, slug }): Subject => ({
        slug,
        name: who,
        value: (r, used) => fresh(used, () => pick(r, EN_CITIES)),
        say: [
          (v) => `${who} lives in ${v}.`,
          (v) => `${who}'s home city is ${v}.`,
          (v) => `${v} is where ${who} lives.`,
          (v) => `${who} is based in ${v} and works remotely.`,
        ],
        update: [
          (v) => `${who} moved to ${v}.`,
          (v) => `${who} is now based in ${v}.`,
          (v, prev) => `${who} relocated from ${prev} to ${v}.`,
        ],
        ask: {
          lexical: [`Where does ${who} live?`, `What is ${who}'s home city?`],
          paraphrase: [`Which city is ${who}'s home base?`, `In what town does ${who} reside?`],
          current: (prev) => [
            `Where does ${who} live now?`,
            `Is ${who} still in ${prev}?`,
            `Which city is ${who} currently based in?`,
          ],
          past: (y) => [`Where did ${who} live in ${y}?`, `Which city was ${who} living in during ${y}?`],
        },
      }),
    ),
};

const personEditor: Family = {
  id: 'person-editor',
  lang: 'en',
  category: 'preference',
  subjects: (pools, rng, n) =>
    take(rng, pools.enPeople, n, 'people').map(
      ({ name: who, slug }): Subject => ({
        slug,
        name: who,
        value: (r, used) => fresh(used, () => pick(r, EDITORS)),
        say: [
          (v) => `${who} prefers ${v} for coding.`,
          (v) => `${who}'s favourite editor is ${v}.`,
          (v) => `${v} is the editor ${who} always uses.`,
          (v) => `${who} writes code in ${v} with a dark theme.`,
        ],
        update: [
          (v) => `${who} switched editors and now uses ${v}.`,
          (v, prev) => `${who} gave up ${prev} and moved to ${v}.`,
          (v) => `${who} now prefers ${v} for coding.`,
        ],
        ask: {
          lexical: [`Which editor does ${who} prefer?`, `What is ${who}'s favourite editor?`],
          paraphrase: [
            `What does ${who} like to write code in?`,
            `Which tool does ${who} edit source files with?`,
          ],
          current: (prev) => [`What editor does ${who} use now?`, `Does ${who} still use ${prev}?`],
          past: (y) => [
            `Which editor did ${who} use in ${y}?`,
            `What was ${who}'s editor of choice in ${y}?`,
          ],
        },
      }),
    ),
};

const meeting: Family = {
  id: 'meeting',
  lang: 'en',
  category: 'reminder',
  subjects: (pools, rng, n) =>
    pairs(rng, pools.enProjects, MEETINGS, n, 'project meetings').map(([p, [m, alt]]): Subject => {
      const room = pick(rng, ROOMS);
      return {
        slug: slugify(`${p} ${m}`),
        name: `${p} ${m}`,
        value: (r, used) => fresh(used, () => `${pick(r, WEEKDAYS)}s at ${pick(r, CLOCK)}`),
        say: [
          (v) => `The ${p} ${m} is on ${v}.`,
          (v) => `${p}'s ${m} happens on ${v} in room ${room}.`,
          (v) => `${v} is when the ${p} team holds its ${m}.`,
          (v) => `Reminder: ${p} ${m}, ${v}.`,
        ],
        update: [
          (v) => `The ${p} ${m} moved to ${v}.`,
          (v) => `${p}'s ${m} is now on ${v}.`,
          (v, prev) => `The ${p} ${m} is no longer on ${prev}; it is ${v} from now on.`,
        ],
        ask: {
          lexical: [`When is the ${p} ${m}?`, `What day and time is ${p}'s ${m}?`],
          paraphrase: [`When does the ${p} team get together for ${alt}?`],
          current: (prev) => [`When is the ${p} ${m} now?`, `Is the ${p} ${m} still on ${prev}?`],
          past: (y) => [`When was the ${p} ${m} held in ${y}?`, `In ${y}, what slot did the ${p} ${m} have?`],
        },
      };
    }),
};

export const EN_PEOPLE_FAMILIES: Family[] = [personCity, personEditor, meeting];
