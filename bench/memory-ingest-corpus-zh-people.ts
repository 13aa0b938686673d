/** Chinese template families about people (habits, home city) for the ingest benchmark corpus. */
import { ZH_CITIES, ZH_DRINKS, ZH_SLOTS, ZH_SPORTS, ZH_WEEKDAYS } from './memory-ingest-corpus-data.js';
import { type Family, fresh, pick, type Subject, take } from './memory-ingest-corpus-kit.js';

const zhDrink: Family = {
  id: 'zh-drink',
  lang: 'zh',
  category: 'preference',
  subjects: (pools, rng, n) =>
    take(rng, pools.zhPeople, n, 'Chinese people').map(
      ({ name: who, slug }): Subject => ({
        slug,
        name: who,
        value: (r, used) => fresh(used, () => pick(r, ZH_DRINKS)),
        say: [
          (v) => `${who}每天早上都要喝一杯${v}。`,
          (v) => `${who}的早餐习惯是配一杯${v}。`,
          (v) => `${v}是${who}每天早上必喝的。`,
          (v) => `${who}早上只喝${v}，已经坚持好几年了。`,
        ],
        update: [
          (v) => `${who}现在早上改喝${v}了。`,
          (v, prev) => `${who}最近早上不喝${prev}了，换成了${v}。`,
          (v) => `${who}说以后早上都喝${v}。`,
        ],
        ask: {
          lexical: [`${who}每天早上喝什么？`, `${who}早上都要喝一杯什么？`],
          paraphrase: [`${who}吃早饭时习惯配什么饮品？`, `${who}起床后一般喝点啥？`],
          current: (prev) => [
            `${who}现在早上喝什么？`,
            `${who}早上还喝${prev}吗？`,
            `${who}目前的早餐饮品是什么？`,
          ],
          past: (y) => [`${y}年${who}早上喝什么？`, `${y}年的时候，${who}每天早上喝的是什么？`],
        },
      }),
    ),
};

const zhCity: Family = {
  id: 'zh-city',
  lang: 'zh',
  category: 'fact',
  subjects: (pools, rng, n) =>
    take(rng, pools.zhPeople, n, 'Chinese people').map(
      ({ name: who, slug }): Subject => ({
        slug,
        name: who,
        value: (r, used) => fresh(used, () => pick(r, ZH_CITIES)),
        say: [
          (v) => `${who}住在${v}。`,
          (v) => `${who}的家在${v}。`,
          (v) => `${v}是${who}的常住城市。`,
          (v) => `${who}在${v}安家，平时远程办公。`,
        ],
        update: [
          (v) => `${who}搬到${v}了。`,
          (v, prev) => `${who}从${prev}搬去了${v}。`,
          (v) => `${who}现在定居在${v}。`,
        ],
        ask: {
          lexical: [`${who}住在哪个城市？`, `${who}的家在哪里？`],
          paraphrase: [`${who}常住在哪儿？`, `${who}在哪座城市生活？`],
          current: (prev) => [`${who}现在住在哪？`, `${who}还住在${prev}吗？`, `${who}目前在哪个城市？`],
          past: (y) => [`${y}年${who}住在哪里？`, `${y}年的时候${who}住在哪个城市？`],
        },
      }),
    ),
};

const zhSport: Family = {
  id: 'zh-sport',
  lang: 'zh',
  category: 'preference',
  subjects: (pools, rng, n) =>
    take(rng, pools.zhPeople, n, 'Chinese people').map(({ name: who, slug }): Subject => {
      const when = `每${pick(rng, ZH_WEEKDAYS)}${pick(rng, ZH_SLOTS)}`;
      return {
        slug,
        name: who,
        value: (r, used) => fresh(used, () => pick(r, ZH_SPORTS)),
        say: [
          (v) => `${who}${when}都会去${v}。`,
          (v) => `${who}的固定运动是${when}${v}。`,
          (v) => `${when}${who}雷打不动要${v}，一般一个小时左右。`,
          (v) => `${v}是${who}${when}的保留项目。`,
        ],
        update: [
          (v) => `${who}现在${when}改去${v}了。`,
          (v, prev) => `${who}不${prev}了，${when}换成了${v}。`,
          (v) => `${who}最近迷上了${v}，${when}都去。`,
        ],
        ask: {
          lexical: [`${who}${when}去做什么运动？`, `${who}的固定运动是什么？`],
          paraphrase: [`${who}平时靠什么锻炼身体？`, `${who}一般怎么健身？`],
          current: (prev) => [`${who}现在${when}做什么运动？`, `${who}还在${prev}吗？`],
          past: (y) => [`${y}年${who}${when}做什么运动？`, `${y}年的时候${who}平时练什么？`],
        },
      };
    }),
};

export const ZH_PEOPLE_FAMILIES: Family[] = [zhDrink, zhCity, zhSport];
