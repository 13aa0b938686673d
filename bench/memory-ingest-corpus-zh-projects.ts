/**
 * Chinese template families about projects for the ingest benchmark corpus. Their projects (Chinese
 * code names such as 青鸟系统 and English names such as Heron项目) never appear in the English project
 * families, so an English and a Chinese statement never describe the same fact.
 */
import {
  CONFIG_FILES,
  CONFIG_KEYS,
  ZH_CLOCK,
  ZH_CLOUDS,
  ZH_ENVS,
  ZH_MEETINGS,
  ZH_ROOMS,
  ZH_TOPICS,
  ZH_WEEKDAYS,
} from './memory-ingest-corpus-data.js';
import { port } from './memory-ingest-corpus-en.js';
import { type Family, fresh, pairs, pick, type Subject, take } from './memory-ingest-corpus-kit.js';

const zhOwner: Family = {
  id: 'zh-project-owner',
  lang: 'zh',
  category: 'fact',
  subjects: (pools, rng, n) =>
    take(rng, pools.zhProjects, n, 'Chinese-side projects').map(
      ({ name: q, short, slug }): Subject => ({
        slug,
        name: q,
        value: (r, used) => fresh(used, () => pick(r, pools.zhPeople).name),
        say: [
          (v) => `${q}的负责人是${v}。`,
          (v) => `${v}负责${q}。`,
          (v) => `${q}由${v}负责维护。`,
          (v) => `${q}的代码评审和发布都由${v}把关。`,
        ],
        update: [
          (v) => `${q}改由${v}负责了。`,
          (v, prev) => `${prev}把${q}交接给了${v}。`,
          (v) => `${q}的负责人换成了${v}。`,
        ],
        ask: {
          lexical: [`${q}的负责人是谁？`, `谁负责${q}？`],
          paraphrase: [`${q}出了问题该找谁？`, `${short}归谁管？`],
          current: (prev) => [`${q}现在的负责人是谁？`, `${q}还是${prev}在负责吗？`, `目前谁在管${short}？`],
          past: (y) => [`${y}年${q}的负责人是谁？`, `${y}年的时候谁在负责${short}？`],
        },
      }),
    ),
};

const zhCloud: Family = {
  id: 'zh-cloud',
  lang: 'zh',
  category: 'fact',
  subjects: (pools, rng, n) =>
    take(rng, pools.zhProjects, n, 'Chinese-side projects').map(
      ({ name: q, short, slug }): Subject => ({
        slug,
        name: q,
        value: (r, used) => fresh(used, () => pick(r, ZH_CLOUDS)),
        say: [
          (v) => `${q}部署在${v}上。`,
          (v) => `${q}跑在${v}上，由运维组统一管理。`,
          (v) => `${v}上跑着${q}。`,
          (v) => `${q}用的是${v}的服务器。`,
        ],
        update: [
          (v) => `${q}已经迁移到了${v}。`,
          (v) => `${q}现在部署在${v}上。`,
          (v, prev) => `${q}从${prev}迁到了${v}。`,
        ],
        ask: {
          lexical: [`${q}部署在哪个云上？`, `${q}跑在哪里？`],
          paraphrase: [`${short}用的是哪家云服务？`, `${q}的服务器托管在哪儿？`],
          current: (prev) => [`${q}目前部署在哪里？`, `${q}还在${prev}上吗？`, `${short}现在用哪家云？`],
          past: (y) => [`${y}年${q}部署在哪个云平台？`, `${y}年的时候${short}跑在哪家云上？`],
        },
      }),
    ),
};

const zhPort: Family = {
  id: 'zh-port',
  lang: 'zh',
  category: 'fact',
  subjects: (pools, rng, n) =>
    pairs(rng, pools.zhProjects, ZH_ENVS, n, 'Chinese-side project environments').map(
      ([{ name: q, short, slug }, [env, alt]], i): Subject => ({
        slug: `${slug}-env${ZH_ENVS.findIndex(([e]) => e === env)}`,
        name: `${q}${env}`,
        value: (r, used) => fresh(used, () => port(r)),
        say: [
          (v) => `${q}的${env}接口跑在${v}端口。`,
          (v) => `${q}${env}的API监听${v}端口，前面挂了nginx。`,
          (v) => `${v}端口是给${q}${env}用的。`,
          (v) => `${q}在${env}下的服务端口是${v}。`,
        ],
        update: [
          (v) => `${q}${env}的端口改成了${v}。`,
          (v) => `${q}的${env}接口现在走${v}端口。`,
          (v, prev) => `${q}${env}的端口从${prev}换到了${v}。`,
        ],
        ask: {
          lexical: [`${q}${env}的接口用哪个端口？`, `${q}的${env}接口跑在哪个端口？`],
          paraphrase: [i % 2 ? `${short}的${alt}服务在哪个端口上？` : `访问${short}${alt}要连哪个端口？`],
          current: (prev) => [`${q}${env}现在用哪个端口？`, `${q}${env}还是${prev}端口吗？`],
          past: (y) => [`${y}年${q}${env}的端口是多少？`, `${y}年的时候${short}${alt}用的哪个端口？`],
        },
      }),
    ),
};

const zhTicket: Family = {
  id: 'zh-ticket',
  lang: 'zh',
  category: 'fact',
  subjects: (pools, rng, n) =>
    Array.from({ length: n }, (): Subject => {
      const t = pools.ticket(rng, pick(rng, pools.zhProjects).code);
      const topic = pick(rng, ZH_TOPICS);
      return {
        slug: t.toLowerCase(),
        name: t,
        value: (r, used) => fresh(used, () => pick(r, pools.zhPeople).name),
        say: [
          (v) => `${t}分配给了${v}。`,
          (v) => `${v}在处理${t}（${topic}）。`,
          (v) => `${t}的处理人是${v}。`,
          (v) => `${t}这个${topic}的问题由${v}跟进。`,
        ],
        update: [
          (v) => `${t}转给了${v}。`,
          (v, prev) => `${prev}把${t}交给了${v}。`,
          (v) => `${t}现在由${v}处理。`,
        ],
        ask: {
          lexical: [`${t}分配给谁了？`, `${t}的处理人是谁？`],
          paraphrase: [`${t}该找谁问进度？`, `${t}是谁在跟？`],
          identifier: [`${t}谁负责？`, `${t}处理人`],
          current: (prev) => [`${t}现在谁在处理？`, `${t}还是${prev}在跟吗？`],
          past: (y) => [`${y}年${t}是谁在处理？`, `${y}年的时候${t}归谁跟进？`],
        },
      };
    }),
};

const zhConfig: Family = {
  id: 'zh-config',
  lang: 'zh',
  category: 'fact',
  subjects: (pools, rng, n) =>
    pairs(rng, pools.zhProjects, CONFIG_KEYS, n, 'Chinese-side config keys').map(
      ([{ name: q, short, slug }, c]): Subject => {
        const k = c.key;
        const f = pick(rng, CONFIG_FILES);
        return {
          slug: `${slug}-${k.replace(/_/g, '-')}`,
          name: `${q} ${k}`,
          value: (r, used) => fresh(used, () => c.gen(r)),
          say: [
            (v) => `${q}的${k}设置为${v}。`,
            (v) => `${q}在${f}里把${k}配成了${v}，各环境一致。`,
            (v) => `${k}在${q}里是${v}。`,
            (v) => `${q}线上用的${k}是${v}。`,
          ],
          update: [
            (v) => `${q}的${k}调整为${v}了。`,
            (v, prev) => `${q}把${k}从${prev}改成了${v}。`,
            (v) => `${q}的${k}现在是${v}。`,
          ],
          ask: {
            lexical: [`${q}的${k}设置成了什么？`, `${q}里${k}配的是多少？`],
            paraphrase: [`${short}的${c.zh}是怎么配置的？`, `${short}那边的${c.zh}设成了什么？`],
            identifier: [`${q}的${k}配的是什么？`, `${f}里${q}的${k}配的什么？`],
            current: (prev) => [`${q}的${k}现在是多少？`, `${q}的${k}还是${prev}吗？`],
            past: (y) => [`${y}年${q}的${k}配置的是多少？`, `${y}年的时候${short}的${c.zh}是多少？`],
          },
        };
      },
    ),
};

const zhMeeting: Family = {
  id: 'zh-meeting',
  lang: 'zh',
  category: 'reminder',
  subjects: (pools, rng, n) =>
    pairs(rng, pools.zhProjects, ZH_MEETINGS, n, 'Chinese-side meetings').map(
      ([{ name: q, short, slug }, [m, alt]]): Subject => {
        const room = pick(rng, ZH_ROOMS);
        return {
          slug: `${slug}-m${ZH_MEETINGS.findIndex(([x]) => x === m)}`,
          name: `${q}${m}`,
          value: (r, used) => fresh(used, () => `${pick(r, ZH_WEEKDAYS.slice(0, 5))}${pick(r, ZH_CLOCK)}`),
          say: [
            (v) => `${q}的${m}定在每${v}。`,
            (v) => `${q}${m}每${v}开，地点在${room}会议室。`,
            (v) => `每${v}是${q}开${m}的时间。`,
            (v) => `提醒：${q}的${m}在每${v}。`,
          ],
          update: [
            (v) => `${q}的${m}改到每${v}了。`,
            (v, prev) => `${q}的${m}从每${prev}挪到了每${v}。`,
            (v) => `${q}的${m}以后都在每${v}开。`,
          ],
          ask: {
            lexical: [`${q}的${m}是什么时候？`, `${q}${m}每周几开？`],
            paraphrase: [`${short}团队的${alt}几点开？`],
            current: (prev) => [`${q}的${m}现在是什么时候？`, `${q}的${m}还是每${prev}吗？`],
            past: (y) => [`${y}年${q}的${m}在什么时候开？`, `${y}年的时候${short}的${alt}定在哪天？`],
          },
        };
      },
    ),
};

export const ZH_PROJECT_FAMILIES: Family[] = [zhOwner, zhCloud, zhPort, zhTicket, zhConfig, zhMeeting];
