/**
 * Test runs in a prompt's bash calls: which command lines run a test suite, and whether
 * that run passed, from the bash tool's result (its first line is `exit code: N`, or
 * `killed: …` / `killed by signal …`; see src/tools/builtin/exec.ts). A pipe such as
 * `npm test | tail` hides the test's exit code, so a failure summary in the output
 * (vitest, jest, pytest, go, cargo, mocha…) counts as a failure too. Pure.
 */

/** Words that run the next word as the command (`npx vitest`, `CI=1 pytest`, `python -m pytest`). */
const PREFIXES: readonly RegExp[] = [
  /^[A-Za-z_][A-Za-z0-9_]*=(?:"[^"]*"|'[^']*'|\S*)\s+/,
  /^(?:env|time|nice|sudo|command|exec)\s+/,
  /^(?:npx|bunx|pnpx)(?:\s+-{1,2}[\w-]+)*\s+/,
  /^(?:pnpm|yarn)\s+(?:exec|dlx)\s+/,
  /^(?:uv|poetry|pipenv|hatch|pdm)\s+run\s+/,
  /^bundle\s+exec\s+/,
  /^(?:python3?|py)\s+-m\s+/,
  /^(?:\.\/)?node_modules\/\.bin\//,
];

/** A test runner at the start of one simple command (after the prefixes are taken off). */
const RUNNERS: readonly RegExp[] = [
  /^(?:npm|pnpm|yarn|bun)\s+(?:run\s+|run-script\s+)?t(?:est)?(?:[:\w-]*)(?:\s|$)/,
  /^(?:npm|pnpm|yarn|bun)\s+(?:run\s+|run-script\s+)?[\w:-]*test[\w:-]*(?:\s|$)/,
  /^(?:vitest|jest|mocha|ava|tap|karma|jasmine|tsx\s+--test)(?:\s|$)/,
  /^(?:playwright|npx\s+playwright)\s+test(?:\s|$)/,
  /^node\s+(?:\S+\s+)*--test(?:\s|$)/,
  /^(?:pytest|py\.test|unittest|tox|nox|nose2?)(?:\s|$)/,
  /^go\s+test(?:\s|$)/,
  /^cargo\s+(?:test|nextest)(?:\s|$)/,
  /^(?:\.\/)?(?:mvnw?|gradlew?)\s+(?:\S+\s+)*(?:test|verify|check)(?:\s|$)/,
  /^make\s+(?:\S+\s+)*(?:test|tests|check)(?:\s|$)/,
  /^(?:ctest|phpunit|rspec|minitest)(?:\s|$)/,
  /^(?:deno|dotnet|mix|swift|zig)\s+test(?:\s|$)/,
  /^rake\s+(?:test|spec)(?:\s|$)/,
];

/** The simple commands of a command line: split on `&&`, `||`, `;`, `|` and newlines. */
function simpleCommands(line: string): string[] {
  return line
    .split(/&&|\|\||[;|\n]/)
    .map((part) =>
      part
        .trim()
        .replace(/^[({]\s*/, '')
        .replace(/\s*[)}]$/, ''),
    )
    .filter((part) => part !== '');
}

function withoutPrefixes(command: string): string {
  let rest = command;
  for (let changed = true; changed; ) {
    changed = false;
    for (const prefix of PREFIXES) {
      const next = rest.replace(prefix, '');
      if (next !== rest) {
        rest = next;
        changed = true;
      }
    }
  }
  return rest;
}

/** Whether the command line runs a test suite (in any of its simple commands). */
export function isTestCommand(line: string): boolean {
  return simpleCommands(line).some((command) => {
    const bare = withoutPrefixes(command);
    return RUNNERS.some((runner) => runner.test(bare));
  });
}

/** Failure summaries of common test runners (a count of at least 1, or a FAIL marker). */
const FAILURE_SUMMARIES: readonly RegExp[] = [
  /\bTests?(?: Files)?:?\s+[1-9]\d*\s+failed\b/, // vitest, jest
  /\b[1-9]\d* (?:failed|failing)\b/, // pytest, mocha, node --test (`# fail 1` below)
  /^# fail [1-9]\d*/m, // node --test, tap
  /^(?:FAIL|--- FAIL:)\s/m, // go test, jest file lines
  /\btest result: FAILED\b/, // cargo
  /\bFAILURES!/, // phpunit
  /\bBUILD FAILURE\b/, // maven
];

export function outputShowsFailure(output: string): boolean {
  return FAILURE_SUMMARIES.some((pattern) => pattern.test(output));
}

export interface BashStatus {
  /** The command's exit code; null when it was killed or the result is not a bash result. */
  exitCode: number | null;
  /** The output after the status line. */
  output: string;
}

/** Reads the bash tool's result: its status line and the output. */
export function bashStatus(result: string): BashStatus {
  const newline = result.indexOf('\n');
  const first = newline < 0 ? result : result.slice(0, newline);
  const output = newline < 0 ? '' : result.slice(newline + 1);
  const m = /^exit code: (-?\d+)$/.exec(first.trim());
  return { exitCode: m ? Number(m[1]) : null, output };
}

/** Whether a test run passed: exit code 0, no failure summary, not an error result. */
export function testPassed(result: string, isError: boolean): boolean {
  if (isError) return false;
  const { exitCode, output } = bashStatus(result);
  return exitCode === 0 && !outputShowsFailure(output);
}
