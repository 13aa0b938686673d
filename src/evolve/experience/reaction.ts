/**
 * The user's reaction to the previous answer, read from the start of their next message,
 * in English and Chinese: `negative` ("that's wrong", "still failing", "不对", "还是不行")
 * revises the previous task to failed; `positive` ("thanks", "works now", "好了") confirms
 * it; anything else is `neutral` (most next messages are simply the next task).
 *
 * How: the message is cut into clauses at "but", "however", "但是", "不过"…, and the last
 * clause that says anything decides ("thanks, but it still fails" is negative; "it
 * failed at first but works now" is positive). Within a clause, phrases that negate a
 * complaint ("nothing wrong", "no longer failing", "没问题") are taken out first, then
 * complaints, then praise, each weighed: a bare "no" at the start weighs less than
 * "it works", so "no, don't worry, it works" is positive. A question does not praise
 * ("is it working now?"). Only the first REACTION_WINDOW characters are read: a long
 * message is a new task, and "fix the wrong date format" deep in it is not a reaction.
 */

export type Reaction = 'negative' | 'positive' | 'neutral';

/** Characters of the next message that are read for a reaction. */
export const REACTION_WINDOW = 240;

interface Cue {
  pattern: RegExp;
  weight: number;
}

/** Taken out before complaints are looked for: they deny a problem. */
const DENIALS: readonly Cue[] = [
  {
    pattern:
      /\b(?:nothing(?: is| was|'s)? (?:wrong|broken)|no longer (?:fail\w*|broken|an? (?:error|issue|problem))|not (?:broken|failing) any ?more|no (?:errors?|failures?|problems?|issues?|worries)(?: (?:any ?more|now|left))?|not (?:wrong|bad))\b/g,
    weight: 2,
  },
  { pattern: /没(?:有)?(?:问题|毛病)|没(?:有)?错|不错|不再报错/g, weight: 2 },
];

const COMPLAINTS: readonly Cue[] = [
  {
    pattern:
      /\b(?:(?:that|this|it|that one|the (?:answer|result|output|fix|change))(?:'s| is| was| are)? (?:still |all |completely |totally )?(?:wrong|incorrect|broken|not (?:right|correct|it|what i (?:asked|wanted|meant))))\b/g,
    weight: 2,
  },
  { pattern: /^(?:wrong|incorrect|not quite|not right|not what i (?:asked|wanted|meant))\b/g, weight: 2 },
  {
    pattern:
      /\byou(?:'re| are) wrong\b|\bwrong (?:file|answer|result|output|fix|function|place|one|again)\b/g,
    weight: 2,
  },
  {
    pattern:
      /\b(?:does ?n[o']t|did ?n[o']t|do ?n[o']t|is ?n[o']t|are ?n[o']t|won'?t|wo n't|can ?n?[o']?t|still (?:does ?n[o']t|did ?n[o']t|is ?n[o']t|not))(?: (?:it|this|that|they))? (?:work|working|compile|build|run|pass|passing|help|fix|start|load)\w*/g,
    weight: 2,
  },
  { pattern: /\bnot (?:working|fixed|passing|compiling)\b/g, weight: 2 },
  {
    pattern:
      /\b(?:nothing (?:works|worked|is working|changed)|can ?n?[o']?t get (?:it|this|that) to (?:work|run|build|pass|compile)|(?:is|are|was|were) (?:still )?(?:wrong|incorrect|broken))\b/g,
    weight: 2,
  },
  {
    pattern:
      /\bstill (?:fail\w*|broken|crash\w*|red|erroring|throw\w*|the same|an? (?:error|exception|issue|problem)|(?:get|gett?ing|see|seeing|have|having) (?:an? |the )?(?:same )?(?:error|exception|failure|issue|problem)s?)/g,
    weight: 2,
  },
  {
    pattern:
      /\b(?:(?:it|that|this|the (?:tests?|build|script|fix|command))(?: still)? (?:fails|failed|crashes|crashed|breaks|broke)|(?:same|another|new) (?:error|exception|failure)|you broke|made it worse|(?:tests?|build) (?:are|is) (?:still )?(?:failing|red|broken))\b/g,
    weight: 2,
  },
  { pattern: /^(?:no|nope|nah)\b/g, weight: 1 },
  {
    pattern:
      /不对|错了|还是不行|还是不对|还是报错|还是失败|不行|没用|没有用|不管用|不能用|用不了|不工作|跑不起来|报错了?|失败了|有问题|出问题|没(?:有)?解决|还没好|没好|不是(?:我)?(?:要的|想要的|这个意思)|搞错|弄错|改坏/g,
    weight: 2,
  },
];

const PRAISE: readonly Cue[] = [
  {
    pattern:
      /\b(?:(?:it|that|this|everything|all)(?:'s| is)? (?:works|worked|working|fixed|passes|passed|passing|green)|works(?: now| fine| great| for me| perfectly)?|that did it|that fixed it|fixed it|all green|(?:tests?|build) (?:pass(?:es|ed)?|(?:is|are) (?:passing|green))|looks good|lgtm|perfect|exactly|great|awesome|excellent|nice|(?:that's|that is|it's|it is) (?:right|correct)|well done)\b/g,
    weight: 2,
  },
  { pattern: /\b(?:thanks|thank you|thx|ty|cheers)\b/g, weight: 1 },
  {
    pattern: /好了|可以了|行了|成功了|解决了|搞定了?|正确|对了|完美|太好了|好的|没问题|通过了|能用了/g,
    weight: 2,
  },
  { pattern: /谢谢|多谢|感谢/g, weight: 1 },
];

/** Splits into clauses where a contrast begins. */
const CONTRAST = /\b(?:but|however|though|although|yet|except)\b|但是|但|不过|可是|然而|只是/;

function score(clause: string, cues: readonly Cue[]): { weight: number; rest: string } {
  let weight = 0;
  let rest = clause;
  for (const cue of cues) {
    rest = rest.replace(cue.pattern, () => {
      weight += cue.weight;
      return ' · ';
    });
  }
  return { weight, rest };
}

function clauseReaction(raw: string): Reaction {
  const clause = raw.trim();
  if (clause === '') return 'neutral';
  const question = /[?？]\s*$|吗\s*[?？]?\s*$/.test(clause);
  const denied = score(clause, DENIALS);
  const complaint = score(denied.rest, COMPLAINTS);
  const praise = score(complaint.rest, PRAISE);
  const good = question ? 0 : praise.weight + denied.weight;
  if (complaint.weight > good) return 'negative';
  if (good > complaint.weight) return 'positive';
  return 'neutral';
}

/** The reaction in `message` (the user's next words) to the answer before it. */
export function classifyReaction(message: string): Reaction {
  const text = message
    .slice(0, REACTION_WINDOW)
    .toLowerCase()
    .replace(/[’‘`]/g, "'")
    .replace(/\s+/g, ' ')
    .trim();
  // Sentences first ("No. It doesn't work." is two), then contrasts inside each.
  const clauses = text
    .split(/(?<=[.!?])\s+|(?<=[。！？])|[\n;；]/)
    .flatMap((sentence) => sentence.split(CONTRAST))
    .map((c) => c.replace(/^[\s,，、:：-]+/, ''));
  let verdict: Reaction = 'neutral';
  for (const clause of clauses) {
    const r = clauseReaction(clause);
    if (r !== 'neutral') verdict = r;
  }
  return verdict;
}
