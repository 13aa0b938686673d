/**
 * English template families about projects and services for the ingest benchmark corpus. Every family
 * has many subjects that share its sentence frames; the subject sits at the start, in the middle or
 * at the end of the sentence depending on the frame.
 */
import {
  COMPONENTS,
  CONFIG_FILES,
  CONFIG_KEYS,
  DATABASES,
  EN_TOPICS,
  ENVS,
  HOST_KINDS,
  LIBS,
  REGIONS,
  SUBDOMAINS,
} from './memory-ingest-corpus-data.js';
import {
  type Family,
  fresh,
  int,
  pairs,
  pick,
  type Rng,
  type Subject,
  slugify,
  take,
} from './memory-ingest-corpus-kit.js';

const COMMON_PORTS = [
  3000, 3001, 4000, 5000, 5173, 6000, 7000, 7001, 8000, 8080, 8081, 8443, 8888, 9000, 9090,
];
export const port = (rng: Rng): string =>
  String(rng() < 0.6 ? pick(rng, COMMON_PORTS) : int(rng, 3000, 9999));
const ip = (rng: Rng): string =>
  rng() < 0.8
    ? `10.${int(rng, 0, 9)}.${int(rng, 0, 31)}.${int(rng, 2, 254)}`
    : `172.16.${int(rng, 0, 15)}.${int(rng, 2, 254)}`;
const host = (rng: Rng): string =>
  `${pick(rng, HOST_KINDS)}-${String(int(rng, 1, 24)).padStart(2, '0')}.${pick(rng, REGIONS)}`;

/** A first version in the package's usual major range, or a later version than the last one used. */
function libVersion(rng: Rng, lo: number, hi: number, used: readonly string[]): string {
  const last = used[used.length - 1];
  if (last === undefined) return `${int(rng, lo, hi)}.${int(rng, 0, 20)}.${int(rng, 0, 12)}`;
  const [ma = 0, mi = 0, pa = 0] = last.split('.').map(Number);
  const r = rng();
  if (r < 0.5) return `${ma}.${mi}.${pa + int(rng, 1, 3)}`;
  if (r < 0.85) return `${ma}.${mi + int(rng, 1, 3)}.${int(rng, 0, 3)}`;
  return `${ma + 1}.0.${int(rng, 0, 2)}`;
}

const apiPort: Family = {
  id: 'api-port',
  lang: 'en',
  category: 'fact',
  subjects: (pools, rng, n) =>
    pairs(rng, pools.enProjects, ENVS, n, 'project environments').map(
      ([p, [env, alt]]): Subject => ({
        slug: slugify(`${p} ${env}`),
        name: `${p} ${env} API`,
        value: (r, used) => fresh(used, () => port(r)),
        say: [
          (v) => `The ${env} API of ${p} runs on port ${v}.`,
          (v) => `${p}'s ${env} API runs on port ${v} behind nginx.`,
          (v) => `Port ${v} is where the ${p} ${env} API listens.`,
          (v) => `We expose the ${env} API for ${p} on port ${v}.`,
        ],
        update: [
          (v) => `${p}'s ${env} API now listens on ${v}.`,
          (v) => `Port for the ${p} ${env} API changed to ${v}.`,
          (v, prev) => `We moved the ${p} ${env} API from port ${prev} to ${v}.`,
          (v) => `Heads up: the ${env} API of ${p} is on port ${v} from now on.`,
        ],
        ask: {
          lexical: [
            `Which port does the ${p} ${env} API run on?`,
            `What port is ${p}'s ${env} API listening on?`,
          ],
          paraphrase: [
            `Where is ${p}'s ${alt} endpoint listening?`,
            `To reach the ${alt} backend of ${p}, which port number do I use?`,
          ],
          current: (prev) => [
            `Which port is the ${p} ${env} API on now?`,
            `Is the ${p} ${env} API still on port ${prev}?`,
            `What port does ${p}'s ${env} API currently use?`,
          ],
          past: (y) => [
            `Which port did the ${p} ${env} API use in ${y}?`,
            `In ${y}, what port was ${p}'s ${env} API listening on?`,
          ],
        },
      }),
    ),
};

const projectDb: Family = {
  id: 'project-db',
  lang: 'en',
  category: 'fact',
  subjects: (pools, rng, n) =>
    take(rng, pools.enProjects, n, 'projects').map(
      (p): Subject => ({
        slug: slugify(p),
        name: p,
        value: (r, used) => fresh(used, () => pick(r, DATABASES)),
        say: [
          (v) => `${p} stores its data in ${v}.`,
          (v) => `${p} uses ${v} for persistence.`,
          (v) => `${v} is the primary database of ${p}.`,
          (v) => `The database behind ${p} is ${v}, with nightly backups to S3.`,
        ],
        update: [
          (v, prev) => `${p} has migrated from ${prev} to ${v}.`,
          (v) => `${p} now keeps everything in ${v}.`,
          (v) => `We switched ${p}'s database to ${v}.`,
        ],
        ask: {
          lexical: [`What database does ${p} use?`, `Which database stores ${p}'s data?`],
          paraphrase: [`Where does ${p} persist its records?`, `What storage engine sits underneath ${p}?`],
          current: (prev) => [
            `What database is ${p} currently on?`,
            `Does ${p} still run on ${prev}?`,
            `Which datastore does ${p} use now?`,
          ],
          past: (y) => [
            `What database did ${p} use in ${y}?`,
            `Which database was behind ${p} back in ${y}?`,
          ],
        },
      }),
    ),
};

const projectOwner: Family = {
  id: 'project-owner',
  lang: 'en',
  category: 'fact',
  subjects: (pools, rng, n) =>
    take(rng, pools.enProjects, n, 'projects').map(
      (p): Subject => ({
        slug: slugify(p),
        name: p,
        value: (r, used) => fresh(used, () => pick(r, pools.enPeople).name),
        say: [
          (v) => `${v} is the owner of ${p}.`,
          (v) => `${p} is maintained by ${v}.`,
          (v) => `The maintainer of ${p} is ${v}.`,
          (v) => `${v} looks after ${p} and reviews every release.`,
        ],
        update: [
          (v, prev) => `${v} took over ${p} from ${prev}.`,
          (v) => `Ownership of ${p} has passed to ${v}.`,
          (v) => `${p} has a new maintainer: ${v}.`,
        ],
        ask: {
          lexical: [`Who is the owner of ${p}?`, `Who maintains ${p}?`],
          paraphrase: [`Who should I ask before changing ${p}?`, `Who is responsible for ${p}?`],
          current: (prev) => [
            `Who owns ${p} now?`,
            `Is ${prev} still the maintainer of ${p}?`,
            `Who currently looks after ${p}?`,
          ],
          past: (y) => [`Who maintained ${p} in ${y}?`, `Who was the owner of ${p} during ${y}?`],
        },
      }),
    ),
};

const serviceHost: Family = {
  id: 'service-host',
  lang: 'en',
  category: 'fact',
  subjects: (pools, rng, n) =>
    pairs(rng, pools.enProjects, COMPONENTS, n, 'services').map(([p, c]): Subject => {
      const s = `${slugify(p)}-${c}`;
      return {
        slug: s,
        name: s,
        value: (r, used) => fresh(used, () => host(r)),
        say: [
          (v) => `The ${s} service is deployed on ${v}.`,
          (v) => `${s} runs on ${v}.`,
          (v) => `${v} hosts ${s} together with its log shipper.`,
          (v) => `We deploy ${s} to ${v} with Ansible.`,
        ],
        update: [
          (v) => `${s} was moved to ${v}.`,
          (v) => `${s} now lives on ${v}.`,
          (v, prev) => `After ${prev} was retired, ${s} is running on ${v}.`,
        ],
        ask: {
          lexical: [`Which host is ${s} deployed on?`, `What machine runs the ${s} service?`],
          paraphrase: [`Which box do I ssh into to debug the ${c} service of ${p}?`],
          identifier: [`Where does ${s} run?`, `${s}: which server?`],
          current: (prev) => [`Which host is ${s} on now?`, `Is ${s} still on ${prev}?`],
          past: (y) => [`Which host ran ${s} in ${y}?`, `Where was ${s} deployed in ${y}?`],
        },
      };
    }),
};

const ticketAssignee: Family = {
  id: 'ticket-assignee',
  lang: 'en',
  category: 'fact',
  subjects: (pools, rng, n) =>
    Array.from({ length: n }, (): Subject => {
      const p = pick(rng, pools.enProjects);
      const prefix = rng() < 0.15 ? 'PROJ' : p.length <= 7 ? p.toUpperCase() : p.slice(0, 4).toUpperCase();
      const t = pools.ticket(rng, prefix);
      const topic = pick(rng, EN_TOPICS);
      return {
        slug: t.toLowerCase(),
        name: t,
        value: (r, used) => fresh(used, () => pick(r, pools.enPeople).name),
        say: [
          (v) => `${t} is assigned to ${v}.`,
          (v) => `${v} is working on ${t} (${topic}).`,
          (v) => `The assignee of ${t} is ${v}.`,
          (v) => `${t}, the ${topic} ticket, sits with ${v} this sprint.`,
        ],
        update: [
          (v) => `${t} was reassigned to ${v}.`,
          (v) => `${v} picked up ${t}.`,
          (v, prev) => `${prev} handed ${t} over to ${v}.`,
        ],
        ask: {
          lexical: [`Who is ${t} assigned to?`, `Who is the assignee of ${t}?`],
          paraphrase: [`Who is on the hook for ${t}?`, `Whom should I ping about progress on ${t}?`],
          identifier: [`${t} owner?`, `Who has ${t}?`],
          current: (prev) => [`Who has ${t} now?`, `Is ${prev} still working on ${t}?`],
          past: (y) => [`Who was ${t} assigned to in ${y}?`, `Who was handling ${t} in ${y}?`],
        },
      };
    }),
};

const domainIp: Family = {
  id: 'domain-ip',
  lang: 'en',
  category: 'fact',
  subjects: (pools, rng, n) =>
    pairs(rng, pools.enProjects, SUBDOMAINS, n, 'domains').map(([p, sub]): Subject => {
      const d = `${sub}.${slugify(p)}.example.com`;
      return {
        slug: d.replace(/\./g, '-'),
        name: d,
        value: (r, used) => fresh(used, () => ip(r)),
        say: [
          (v) => `${d} points to ${v}.`,
          (v) => `The DNS record for ${d} resolves to ${v}.`,
          (v) => `${v} serves ${d}.`,
          (v) => `${d} resolves to ${v} behind the load balancer.`,
        ],
        update: [
          (v) => `${d} now resolves to ${v} after the migration.`,
          (v, prev) => `We repointed ${d} from ${prev} to ${v}.`,
          (v) => `The A record of ${d} was changed to ${v}.`,
        ],
        ask: {
          lexical: [`What does ${d} point to?`, `Which IP does ${d} resolve to?`],
          paraphrase: [
            `What's the address behind the ${sub} host of ${p}?`,
            `Which server answers for ${d}?`,
          ],
          identifier: [`${d} IP?`, `A record for ${d}?`],
          current: (prev) => [`What IP does ${d} resolve to now?`, `Does ${d} still point to ${prev}?`],
          past: (y) => [`What did ${d} resolve to in ${y}?`, `Which IP was ${d} pointing at in ${y}?`],
        },
      };
    }),
};

const configKey: Family = {
  id: 'config-key',
  lang: 'en',
  category: 'fact',
  subjects: (pools, rng, n) =>
    pairs(rng, pools.enProjects, CONFIG_KEYS, n, 'config keys').map(([p, c]): Subject => {
      const k = c.key;
      const f = pick(rng, CONFIG_FILES);
      return {
        slug: `${slugify(p)}-${k.replace(/_/g, '-')}`,
        name: `${p} ${k}`,
        value: (r, used) => fresh(used, () => c.gen(r)),
        say: [
          (v) => `In ${p}, ${k} is set to ${v}.`,
          (v) => `${p}'s ${f} sets ${k} to ${v} for every environment.`,
          (v) => `${k} = ${v} in ${f} for ${p}.`,
          (v) => `${p} runs with ${k} at ${v}.`,
        ],
        update: [
          (v) => `We changed ${k} in ${p} to ${v}.`,
          (v) => `${p}'s ${k} is now ${v}.`,
          (v, prev) => `${k} for ${p} went from ${prev} to ${v} in ${f}.`,
        ],
        ask: {
          lexical: [`What is ${k} set to in ${p}?`, `Which value does ${p} use for ${k}?`],
          paraphrase: [`How is ${c.en} configured for ${p}?`, `What did we choose for ${c.en} in ${p}?`],
          identifier: [`${k} in ${f} for ${p}?`, `${p} ${k} value`],
          current: (prev) => [`What is ${k} in ${p} now?`, `Is ${k} still ${prev} in ${p}?`],
          past: (y) => [`What was ${k} set to in ${p} in ${y}?`, `In ${y}, which ${k} did ${p} run with?`],
        },
      };
    }),
};

const libVersionFamily: Family = {
  id: 'lib-version',
  lang: 'en',
  category: 'fact',
  subjects: (pools, rng, n) =>
    pairs(rng, pools.enProjects, LIBS, n, 'project packages').map(
      ([p, [lib, lo, hi]]): Subject => ({
        slug: `${slugify(p)}-${slugify(lib)}`,
        name: `${p} ${lib}`,
        value: (r, used) => fresh(used, () => libVersion(r, lo, hi, used)),
        say: [
          (v) => `${p} is pinned to ${lib} v${v}.`,
          (v) => `${p} depends on ${lib} ${v}.`,
          (v) => `The ${lib} version used by ${p} is ${v}.`,
          (v) => `${lib} v${v} is what ${p} ships with, according to the lockfile.`,
        ],
        update: [
          (v) => `${p} was upgraded to ${lib} ${v}.`,
          (v) => `We bumped ${lib} in ${p} to v${v}.`,
          (v, prev) => `${p} moved from ${lib} ${prev} to ${v}.`,
        ],
        ask: {
          lexical: [`Which ${lib} version is ${p} pinned to?`, `What version of ${lib} does ${p} depend on?`],
          paraphrase: [`Which release of ${lib} is in ${p}'s lockfile?`, `How up to date is ${lib} in ${p}?`],
          identifier: [`${lib} version in ${p}?`, `${p} ${lib} release`],
          current: (prev) => [`Which ${lib} version is ${p} on now?`, `Is ${p} still on ${lib} ${prev}?`],
          past: (y) => [
            `Which ${lib} version did ${p} use in ${y}?`,
            `In ${y}, what ${lib} release was ${p} on?`,
          ],
        },
      }),
    ),
};

export const EN_PROJECT_FAMILIES: Family[] = [
  apiPort,
  projectDb,
  projectOwner,
  serviceHost,
  ticketAssignee,
  domainIp,
  configKey,
  libVersionFamily,
];
