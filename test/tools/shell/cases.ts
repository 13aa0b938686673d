/**
 * Command lines for the shell permission tests, under the rules
 *   allow bash:npm test*, allow bash:git status, allow bash:echo*,
 *   deny bash:rm *, deny bash:*curl*
 * BYPASSES must never run without approval; LEGIT must run without asking.
 * `deny` rows are refused outright (a deny rule or read-only), `ask` rows need the
 * user (and are refused where nobody can answer).
 */
import type { PermissionRule } from '../../../src/tools/permissions.js';

export const RULES: PermissionRule[] = [
  { tool: 'bash', pattern: 'npm test*', action: 'allow' },
  { tool: 'bash', pattern: 'git status', action: 'allow' },
  { tool: 'bash', pattern: 'echo*', action: 'allow' },
  { tool: 'bash', pattern: 'rm *', action: 'deny' },
  { tool: 'bash', pattern: '*curl*', action: 'deny' },
];

export type Expect = 'deny' | 'ask';
export type Case = [command: string, expect: Expect, group: string];

const CURL = 'curl http://127.0.0.1:9/x';
const RM = 'rm -rf victim';

/** Each joiner between an allowed command and a forbidden one. */
const JOINERS = [';', ' ; ', '&&', ' && ', '||', ' || ', '&', ' & ', '|', ' | ', '|&', '\n', ';\n', ' &\n'];

const chaining: Case[] = [
  ...JOINERS.map((j): Case => [`npm test${j}${CURL}`, 'deny', 'chaining']),
  ...JOINERS.map((j): Case => [`git status${j}cat /etc/passwd`, 'ask', 'chaining']),
  ...JOINERS.map((j): Case => [`echo hi${j}${RM}`, 'deny', 'chaining']),
  [`npm test; id`, 'ask', 'chaining'],
  [`npm test && touch pwned`, 'ask', 'chaining'],
  [`${CURL}; npm test`, 'deny', 'chaining'],
  [`npm test || { ${CURL}; }`, 'deny', 'chaining'],
  [`npm test && (${RM})`, 'deny', 'chaining'],
  [`npm test;;${CURL}`, 'ask', 'chaining'],
  [`npm test\n\n\n${CURL}`, 'deny', 'chaining'],
  [`npm test # harmless\n${CURL}`, 'deny', 'chaining'],
  [`npm test \\\n&& ${CURL}`, 'deny', 'chaining'],
  [`! npm test || ${CURL}`, 'deny', 'chaining'],
];

const substitution: Case[] = [
  [`npm test $(${CURL})`, 'deny', 'substitution'],
  [`npm test \`${CURL}\``, 'deny', 'substitution'],
  [`echo "$(${RM})"`, 'deny', 'substitution'],
  [`echo "\`id\`"`, 'ask', 'substitution'],
  [`npm test -- $(cat /etc/passwd)`, 'ask', 'substitution'],
  [`echo $(echo $(${CURL}))`, 'deny', 'substitution'],
  [`echo $(echo \`id\`)`, 'ask', 'substitution'],
  [`X=$(${CURL}) npm test`, 'deny', 'substitution'],
  [`git status $(touch pwned)`, 'ask', 'substitution'],
  [`echo \${X:-$(${CURL})}`, 'deny', 'substitution'],
  [`echo "\${X:=$(id)}"`, 'ask', 'substitution'],
  [`npm test > "$(${CURL})"`, 'deny', 'substitution'],
  [`cat <<EOF\n$(${CURL})\nEOF`, 'deny', 'substitution'],
  [`npm test <<EOF\n$(id)\nEOF`, 'ask', 'substitution'],
  [`npm test <<< "$(id)"`, 'ask', 'substitution'],
  [`echo \${X[$(id)]}`, 'ask', 'substitution'],
];

const procSubst: Case[] = [
  [`npm test <(${CURL})`, 'deny', 'process substitution'],
  [`npm test >(${RM})`, 'deny', 'process substitution'],
  [`echo hi > >(sh)`, 'ask', 'process substitution'],
  [`git status <(id)`, 'ask', 'process substitution'],
  [`echo <(cat /etc/passwd)`, 'ask', 'process substitution'],
  [`npm test 2> >(tee /tmp/log)`, 'ask', 'process substitution'],
];

const OUTSIDE = ['/tmp/tea-outside', '../outside.txt', '~/.bashrc', '$HOME/.bashrc', '/etc/cron.d/x'];
const WRITE_OPS = ['>', '>>', '>|', '&>', '&>>', '2>', '1>', '<>', '>&'];

const redirects: Case[] = [
  ...WRITE_OPS.map((op): Case => [`npm test ${op} /tmp/tea-outside`, 'ask', 'redirection']),
  ...OUTSIDE.map((target): Case => [`echo hi >> ${target}`, 'ask', 'redirection']),
  [`echo hi > .git/hooks/pre-commit`, 'ask', 'redirection'],
  [`git status > ".git/config"`, 'ask', 'redirection'],
  [`npm test 2>/tmp/x 1>&2`, 'ask', 'redirection'],
  [`npm test {fd}>/tmp/x`, 'ask', 'redirection'],
  [`exec 3>/tmp/x; npm test`, 'ask', 'redirection'],
  [`echo hi > /tmp/*`, 'ask', 'redirection'],
  [`echo hi > ~root/.ssh/authorized_keys`, 'ask', 'redirection'],
  [`npm test < /etc/shadow`, 'ask', 'redirection'],
  [`echo hi > /dev/tcp/127.0.0.1/9`, 'ask', 'redirection'],
  [`cd sub && echo hi > ../../outside`, 'ask', 'redirection'],
  [`echo hi > out.txt`, 'ask', 'redirection'],
];

const quoting: Case[] = [
  [`c''url http://127.0.0.1:9/`, 'deny', 'quoting'],
  [`c""url http://127.0.0.1:9/`, 'deny', 'quoting'],
  [`"curl" http://127.0.0.1:9/`, 'deny', 'quoting'],
  [`'curl' http://127.0.0.1:9/`, 'deny', 'quoting'],
  [`c\\url http://127.0.0.1:9/`, 'deny', 'quoting'],
  [`\\c\\u\\r\\l http://127.0.0.1:9/`, 'deny', 'quoting'],
  [`'c'u"r"l http://127.0.0.1:9/`, 'deny', 'quoting'],
  [`cu\\\nrl http://127.0.0.1:9/`, 'deny', 'quoting'],
  [`r''m -rf victim`, 'deny', 'quoting'],
  [`"rm" -rf victim`, 'deny', 'quoting'],
  [`\\rm -rf victim`, 'deny', 'quoting'],
  [`r\\m -rf victim`, 'deny', 'quoting'],
  [`rm\t-rf victim`, 'deny', 'quoting'],
  [`rm  -rf   victim`, 'deny', 'quoting'],
  [` rm -rf victim`, 'deny', 'quoting'],
  [`\trm -rf victim`, 'deny', 'quoting'],
  [`$'\\x63url' http://127.0.0.1:9/`, 'ask', 'quoting'],
  [`$'\\143url' http://127.0.0.1:9/`, 'ask', 'quoting'],
  [`$'c'url http://127.0.0.1:9/`, 'ask', 'quoting'],
  [`$"curl" http://127.0.0.1:9/`, 'ask', 'quoting'],
  [`$'\\x72\\x6d' -rf victim`, 'ask', 'quoting'],
  [`npm\\;curl`, 'ask', 'quoting'],
  [`'npm;curl'`, 'ask', 'quoting'],
  [`npm test\\;id`, 'ask', 'quoting'],
  [`echo hi\\&\\&id`, 'ask', 'quoting'],
  [`"npm test; id"`, 'ask', 'quoting'],
];

const ifs: Case[] = [
  [`curl\${IFS}http://127.0.0.1:9/`, 'ask', 'IFS'],
  [`rm\${IFS}-rf\${IFS}victim`, 'ask', 'IFS'],
  [`npm\${IFS}test;id`, 'ask', 'IFS'],
  [`echo\${IFS}hi`, 'ask', 'IFS'],
  [`IFS=,; cmd=curl,x; $cmd`, 'ask', 'IFS'],
  [`IFS=x npm test`, 'ask', 'IFS'],
  [`{curl,http://127.0.0.1:9/}`, 'ask', 'IFS'],
  [`c{u,}rl http://127.0.0.1:9/`, 'ask', 'IFS'],
  [`$IFS rm -rf victim`, 'ask', 'IFS'],
  [`r?m -rf victim`, 'ask', 'IFS'],
  [`/usr/bin/c*rl http://127.0.0.1:9/`, 'ask', 'IFS'],
  [`/bin/r[m] -rf victim`, 'ask', 'IFS'],
];

const shells: Case[] = [
  [`bash -c '${CURL}'`, 'deny', 'shell payload'],
  [`sh -c "${RM}"`, 'deny', 'shell payload'],
  [`bash -c 'npm test; ${CURL}'`, 'deny', 'shell payload'],
  [`bash -xc 'id'`, 'ask', 'shell payload'],
  [`bash -lc 'npm test'`, 'ask', 'shell payload'],
  [`bash -ic 'npm test'`, 'ask', 'shell payload'],
  [`bash --rcfile x -c 'npm test'`, 'ask', 'shell payload'],
  [`dash -c 'id'`, 'ask', 'shell payload'],
  [`ksh -c '${CURL}'`, 'deny', 'shell payload'],
  [`zsh -c 'npm test'`, 'ask', 'shell payload'],
  [`busybox sh -c 'id'`, 'ask', 'shell payload'],
  [`/bin/bash -c 'id'`, 'ask', 'shell payload'],
  [`bash -c "bash -c '${CURL}'"`, 'deny', 'shell payload'],
  [`bash -c "$X"`, 'ask', 'shell payload'],
  [`sh -c "$(echo id)"`, 'ask', 'shell payload'],
  [`bash -c 'eval "$1"' _ id`, 'ask', 'shell payload'],
  [`bash <<< '${CURL}'`, 'ask', 'shell payload'],
  [`bash <<EOF\n${CURL}\nEOF`, 'ask', 'shell payload'],
  [`sh < script.sh`, 'ask', 'shell payload'],
  [`echo id | bash`, 'ask', 'shell payload'],
  [`echo ${CURL} | sh -s`, 'deny', 'shell payload'],
  [`npm test | bash -s`, 'ask', 'shell payload'],
  [`eval '${CURL}'`, 'deny', 'shell payload'],
  [`eval npm test\\; id`, 'ask', 'shell payload'],
  [`eval "$(echo id)"`, 'ask', 'shell payload'],
  [`eval "$X"`, 'ask', 'shell payload'],
  [`builtin eval "${RM}"`, 'deny', 'shell payload'],
  [`exec bash -c 'id'`, 'ask', 'shell payload'],
  [`env bash -c '${CURL}'`, 'deny', 'shell payload'],
  [`bash script.sh`, 'ask', 'shell payload'],
  [`source ./evil.sh`, 'ask', 'shell payload'],
  [`. ./evil.sh`, 'ask', 'shell payload'],
  [`trap '${CURL}' EXIT; npm test`, 'deny', 'shell payload'],
  [`trap 'id' EXIT; npm test`, 'ask', 'shell payload'],
];

const runners: Case[] = [
  [`echo victim | xargs rm -rf`, 'deny', 'runner'],
  [`echo victim | xargs rm`, 'deny', 'runner'],
  [`echo x | xargs -I{} sh -c '{}'`, 'ask', 'runner'],
  [`echo x | xargs curl`, 'deny', 'runner'],
  [`echo x | xargs -0 -n1 id`, 'ask', 'runner'],
  [`find . -exec rm -rf {} +`, 'deny', 'runner'],
  [`find . -execdir curl http://127.0.0.1:9/ \\;`, 'deny', 'runner'],
  [`find . -exec sh -c 'id' \\;`, 'ask', 'runner'],
  [`find . -delete`, 'ask', 'runner'],
  [`find . -ok id \\;`, 'ask', 'runner'],
  [`timeout 5 ${CURL}`, 'deny', 'runner'],
  [`timeout -s KILL 5 ${RM}`, 'deny', 'runner'],
  [`nohup ${RM}`, 'deny', 'runner'],
  [`nice -n 5 ${RM}`, 'deny', 'runner'],
  [`setsid ${RM}`, 'deny', 'runner'],
  [`sudo ${RM}`, 'deny', 'runner'],
  [`sudo -u root ${CURL}`, 'deny', 'runner'],
  [`sudo npm test`, 'ask', 'runner'],
  [`doas ${RM}`, 'deny', 'runner'],
  [`watch '${RM}'`, 'deny', 'runner'],
  [`strace -f ${CURL}`, 'deny', 'runner'],
  [`flock /tmp/l ${RM}`, 'deny', 'runner'],
  [`stdbuf -o0 ${CURL}`, 'deny', 'runner'],
  [`time ${RM}`, 'deny', 'runner'],
  [`time -p id`, 'ask', 'runner'],
  [`npx rm -rf victim`, 'deny', 'runner'],
  [`parallel rm ::: victim`, 'deny', 'runner'],
  [`env -S '${RM}'`, 'ask', 'runner'],
  [`env -C / id`, 'ask', 'runner'],
];

const paths: Case[] = [
  [`/bin/rm -rf victim`, 'deny', 'path'],
  [`/usr/bin/rm -rf victim`, 'deny', 'path'],
  [`//bin//rm -rf victim`, 'deny', 'path'],
  [`/usr/bin/../bin/rm -rf victim`, 'deny', 'path'],
  [`/usr/local/bin/curl http://127.0.0.1:9/`, 'deny', 'path'],
  [`/usr/bin/curl http://127.0.0.1:9/`, 'deny', 'path'],
  [`/opt/tools/rm -rf victim`, 'deny', 'path'],
  [`./rm -rf victim`, 'deny', 'path'],
  [`./npm test`, 'ask', 'path'],
  [`/tmp/npm test`, 'ask', 'path'],
  [`~/bin/npm test`, 'ask', 'path'],
  [`../echo hi`, 'ask', 'path'],
  [`/usr/bin/id`, 'ask', 'path'],
];

const envPrefix: Case[] = [
  [`PATH=. npm test`, 'ask', 'env prefix'],
  [`PATH=/tmp:$PATH git status`, 'ask', 'env prefix'],
  [`LD_PRELOAD=./evil.so npm test`, 'ask', 'env prefix'],
  [`NODE_OPTIONS='--require ./evil.js' npm test`, 'ask', 'env prefix'],
  [`BASH_ENV=./evil.sh bash -c 'npm test'`, 'ask', 'env prefix'],
  [`GIT_PAGER='id' git status`, 'ask', 'env prefix'],
  [`GIT_CONFIG_PARAMETERS="'core.fsmonitor=id'" git status`, 'ask', 'env prefix'],
  [`PAGER=id git status`, 'ask', 'env prefix'],
  [`npm_config_script_shell=./evil.sh npm test`, 'ask', 'env prefix'],
  [`NPM_CONFIG_SCRIPT_SHELL=./evil.sh npm test`, 'ask', 'env prefix'],
  [`HOME=/tmp/evil npm test`, 'ask', 'env prefix'],
  [`X=1 ${CURL}`, 'deny', 'env prefix'],
  [`X=1 Y=2 ${RM}`, 'deny', 'env prefix'],
  [`env PATH=. npm test`, 'ask', 'env prefix'],
  [`env LD_PRELOAD=x git status`, 'ask', 'env prefix'],
  [`X=curl; $X http://127.0.0.1:9/`, 'ask', 'env prefix'],
  [`export PATH=.; npm test`, 'ask', 'env prefix'],
  [`a[$(id)]=1 npm test`, 'ask', 'env prefix'],
  [`npm test --script-shell=./evil.sh`, 'ask', 'env prefix'],
  [`npm test --node-options='--require ./evil.js'`, 'ask', 'env prefix'],
  [`npm test --userconfig ./evil-npmrc`, 'ask', 'env prefix'],
  [`git -c core.pager=id status`, 'ask', 'env prefix'],
];

const wrappers: Case[] = [
  [`command ${RM}`, 'deny', 'wrapper'],
  [`command -p ${CURL}`, 'deny', 'wrapper'],
  [`command -- ${RM}`, 'deny', 'wrapper'],
  [`builtin command ${RM}`, 'deny', 'wrapper'],
  [`exec ${CURL}`, 'deny', 'wrapper'],
  [`exec -a x ${RM}`, 'deny', 'wrapper'],
  [`env ${RM}`, 'deny', 'wrapper'],
  [`env -i ${CURL}`, 'deny', 'wrapper'],
  [`env -u HOME ${RM}`, 'deny', 'wrapper'],
  [`env -- ${CURL}`, 'deny', 'wrapper'],
  [`env X=1 ${RM}`, 'deny', 'wrapper'],
  [`command env exec ${RM}`, 'deny', 'wrapper'],
  [`command id`, 'ask', 'wrapper'],
  [`exec id`, 'ask', 'wrapper'],
  [`env id`, 'ask', 'wrapper'],
  [`command $X`, 'ask', 'wrapper'],
  [`env $X npm test`, 'ask', 'wrapper'],
];

const functions: Case[] = [
  [`f(){ ${CURL}; }; f`, 'deny', 'function'],
  [`f(){ id; }; f`, 'ask', 'function'],
  [`npm(){ id; }; npm test`, 'ask', 'function'],
  [`function npm { ${RM}; }; npm test`, 'deny', 'function'],
  [`git(){ echo hi; }; git status`, 'ask', 'function'],
  [`alias npm=id; npm test`, 'ask', 'function'],
  [`shopt -s expand_aliases; alias x=id; x`, 'ask', 'function'],
  [`set -- id; "$@"`, 'ask', 'function'],
  [`hash -p /usr/bin/id npm; npm test`, 'ask', 'function'],
  [`enable -n echo; echo hi`, 'ask', 'function'],
  [`declare -f`, 'ask', 'function'],
  [`export -f npm`, 'ask', 'function'],
  [`readonly X=$(id)`, 'ask', 'function'],
  [`local x=1`, 'ask', 'function'],
  [`coproc ${CURL}`, 'deny', 'function'],
  [`coproc id`, 'ask', 'function'],
];

const compound: Case[] = [
  [`{ ${CURL}; }`, 'deny', 'compound'],
  [`(${RM})`, 'deny', 'compound'],
  [`if npm test; then ${CURL}; fi`, 'deny', 'compound'],
  [`if id; then npm test; fi`, 'ask', 'compound'],
  [`while npm test; do ${RM}; done`, 'deny', 'compound'],
  [`until id; do npm test; done`, 'ask', 'compound'],
  [`for i in 1; do ${CURL}; done`, 'deny', 'compound'],
  [`for x in curl; do $x; done`, 'ask', 'compound'],
  [`case x in x) ${RM};; esac`, 'deny', 'compound'],
  [`case $(id) in x) npm test;; esac`, 'ask', 'compound'],
  [`select x in a; do id; done`, 'ask', 'compound'],
  [`npm test && { git status; id; }`, 'ask', 'compound'],
  [`((0)) || id`, 'ask', 'compound'],
];

const arithmetic: Case[] = [
  [`echo $((x))`, 'ask', 'arithmetic'],
  [`echo $[1+1]`, 'ask', 'arithmetic'],
  [`(( x = 1 ))`, 'ask', 'arithmetic'],
  [`let x=1`, 'ask', 'arithmetic'],
  [`for ((i=0; i<1; i++)); do npm test; done`, 'ask', 'arithmetic'],
  [`[[ $x -eq 1 ]] && npm test`, 'ask', 'arithmetic'],
  [`echo \${x:$(id)}`, 'ask', 'arithmetic'],
  [`x='a[$(id)]'; echo $((x))`, 'ask', 'arithmetic'],
];

const params: Case[] = [
  [`$X`, 'ask', 'parameter'],
  [`\${X}`, 'ask', 'parameter'],
  [`"$X" http://127.0.0.1:9/`, 'ask', 'parameter'],
  [`$@`, 'ask', 'parameter'],
  [`\${!X}`, 'ask', 'parameter'],
  [`\${X:-curl} http://127.0.0.1:9/`, 'ask', 'parameter'],
  [`echo \${X/a/b}`, 'ask', 'parameter'],
  [`$0 -c id`, 'ask', 'parameter'],
  [`npm $X`, 'ask', 'parameter'],
  [`git \${X:-status}`, 'ask', 'parameter'],
];

// Look-alike letters and invisible characters.
const unicode: Case[] = [
  ['\uff43\uff55\uff52\uff4c http://127.0.0.1:9/', 'ask', 'unicode'], // fullwidth curl
  ['\u0441url http://127.0.0.1:9/', 'ask', 'unicode'], // Cyrillic es
  ['r\uff4d -rf victim', 'ask', 'unicode'], // fullwidth m
  ['ech\u03bf hi; id', 'ask', 'unicode'], // Greek omicron
  ['npm\u00a0test; id', 'ask', 'unicode'], // no-break space
  ['npm t\u0435st', 'ask', 'unicode'], // Cyrillic ie in the argument
  ['cu\u200brl http://127.0.0.1:9/', 'ask', 'unicode'], // zero-width space
  ['npm test \u202e;di', 'ask', 'unicode'], // right-to-left override
  ['c\u00adurl http://127.0.0.1:9/', 'ask', 'unicode'], // soft hyphen
  ['npm test\u2028id', 'ask', 'unicode'], // line separator
  ['\ufeffrm -rf victim', 'ask', 'unicode'], // byte order mark
  ['npm\u3000test', 'ask', 'unicode'], // ideographic space
];

const control: Case[] = [
  ['npm test\u0000; id', 'ask', 'control'],
  ['npm test\r\ncurl http://127.0.0.1:9/', 'ask', 'control'],
  ['npm test\rid', 'ask', 'control'],
  ['npm test\u000bid', 'ask', 'control'],
  ['npm test\u000cid', 'ask', 'control'],
  ['echo \u001b[2K\u001b[1Ghi; id', 'ask', 'control'],
  ['echo hi\u0007', 'ask', 'control'],
  ['git status\u007f', 'ask', 'control'],
  ['npm test\u0085id', 'ask', 'control'],
];

const long: Case[] = [
  [`npm test ${'a '.repeat(12_000)}; ${CURL}`, 'ask', 'long'],
  [`echo ${'x'.repeat(25_000)}`, 'ask', 'long'],
  [`npm test${' && npm test'.repeat(2_000)}; id`, 'ask', 'long'],
  [`echo ${'$('.repeat(400)}id${')'.repeat(400)}`, 'ask', 'long'],
  [`${'('.repeat(300)}id${')'.repeat(300)}`, 'ask', 'long'],
  [`npm test; ${'echo hi; '.repeat(500)}id`, 'ask', 'long'],
  [`bash -c "bash -c \\"bash -c 'bash -c \\\\\\"bash -c id\\\\\\"'\\""`, 'ask', 'long'],
];

const syntax: Case[] = [
  [`npm test; (`, 'ask', 'syntax'],
  [`npm test "`, 'ask', 'syntax'],
  [`npm test && `, 'ask', 'syntax'],
  [`npm test <<EOF\n$(id)`, 'ask', 'syntax'],
  [`echo $(`, 'ask', 'syntax'],
  [`#!/bin/sh`, 'ask', 'syntax'],
  [`   `, 'ask', 'syntax'],
];

export const BYPASSES: Case[] = [
  ...chaining,
  ...substitution,
  ...procSubst,
  ...redirects,
  ...quoting,
  ...ifs,
  ...shells,
  ...runners,
  ...paths,
  ...envPrefix,
  ...wrappers,
  ...functions,
  ...compound,
  ...arithmetic,
  ...params,
  ...unicode,
  ...control,
  ...long,
  ...syntax,
];

/** Command lines that run without asking under RULES in ask mode. */
export const LEGIT: string[] = [
  'npm test',
  'npm test -- --run foo',
  'npm test -- --run "foo bar"',
  "npm test -- -t 'a; b'",
  'git status',
  'echo hi',
  'echo "hello world"',
  "echo 'a;b|c&d'",
  `echo $HOME "$USER" \${PWD}`,
  'echo */*.ts',
  'npm test 2>&1',
  'npm test > /dev/null',
  'npm test 2>/dev/null',
  'npm test &>/dev/null',
  'npm test >/dev/null 2>&1',
  'npm test < /dev/null',
  'echo hi >&2',
  'echo hi > /dev/stderr',
  'NODE_ENV=test npm test',
  'CI=1 NODE_ENV=test FORCE_COLOR=0 npm test',
  'env NODE_ENV=test npm test',
  'cd sub && npm test',
  'cd ./sub/deeper; npm test',
  'cd . && git status',
  'npm test && echo ok',
  'npm test || echo failed',
  'git status; echo done',
  'npm test; echo $?',
  'npm test && git status && echo all good',
  '(npm test)',
  '{ npm test; git status; }',
  'npm test # run the tests',
  '  npm test  ',
  'npm test\n',
  'npm test\necho done',
  'if npm test; then echo ok; else echo failed; fi',
  'for f in a b; do echo $f; done',
  'until git status; do echo retry; done',
  'npm test | echo done',
  'npm test |& echo done',
  'npm test &',
  '! npm test',
  'time npm test',
  '/usr/bin/git status',
  '"npm" test',
  '\'git\' "status"',
  'command npm test',
  'exec npm test',
  'timeout 600 npm test',
  'nohup npm test',
  'bash -c "npm test"',
  "sh -c 'npm test && echo ok'",
  'eval npm test',
  'echo "$(git status)"',
  'echo $(npm test)',
  "npm test <<'EOF'\nliteral $(id) `id`\nEOF",
  'npm test <<< "input"',
];
