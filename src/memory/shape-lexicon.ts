/**
 * Well-known things of a kind, for reading what kind of value a statement holds
 * when its form does not tell: a database, an editor, a cloud, a programming
 * language, a city. Broad on purpose — the common ones of each kind, in English
 * and Chinese — matched as written (PostgreSQL), or in lower case for names of
 * five letters or more (postgresql). Names that are also common words (Go, R,
 * Render, Reading, Nice) are left out. A thing not listed is simply not read.
 */

export type LexiconShape = 'database' | 'editor' | 'cloud' | 'language' | 'place';

const list = (text: string): string[] =>
  text
    .split('|')
    .map((w) => w.trim())
    .filter((w) => w.length > 0);

export const LEXICON: Readonly<Record<LexiconShape, readonly string[]>> = {
  database: list(`PostgreSQL|Postgres|MySQL|SQLite|MongoDB|Redis|ClickHouse|DynamoDB|CockroachDB|MariaDB|
    Cassandra|TiDB|Elasticsearch|OpenSearch|Neo4j|Firestore|ScyllaDB|DuckDB|Oracle Database|SQL Server|
    Microsoft SQL Server|Db2|Couchbase|CouchDB|InfluxDB|TimescaleDB|Snowflake|BigQuery|Redshift|Supabase|
    PlanetScale|Spanner|Cloud Spanner|Bigtable|HBase|Memcached|Valkey|KeyDB|RethinkDB|ArangoDB|FaunaDB|
    YugabyteDB|SingleStore|Vitess|OceanBase|PolarDB|达梦|人大金仓|SurrealDB|Qdrant|Milvus|Weaviate|
    Pinecone|Chroma|LanceDB|LevelDB|RocksDB|etcd|Dgraph|QuestDB|Apache Pinot|StarRocks|Doris`),
  editor: list(`Neovim|NeoVim|Vim|Emacs|VS Code|VSCode|Visual Studio Code|Visual Studio|Zed|Sublime Text|
    IntelliJ IDEA|IntelliJ|WebStorm|PyCharm|GoLand|CLion|RubyMine|PhpStorm|Android Studio|Xcode|
    Eclipse|NetBeans|Helix|Kakoune|GNU nano|Notepad++|TextMate|BBEdit|Nova|Cursor|Windsurf|
    Geany|Lapce|Spacemacs|Doom Emacs|LunarVim|AstroNvim|Jupyter|RStudio`),
  cloud: list(`AWS|Amazon Web Services|Azure|Microsoft Azure|GCP|Google Cloud|Google Cloud Platform|
    DigitalOcean|Linode|Akamai|Vultr|Hetzner|OVH|OVHcloud|Scaleway|Oracle Cloud|IBM Cloud|Cloudflare|
    Fly.io|Heroku|Vercel|Netlify|阿里云|腾讯云|华为云|百度云|百度智能云|火山引擎|京东云|
    天翼云|金山云|UCloud|优刻得|青云|七牛云|移动云|联通云|自建机房|本地机房|私有云|on-prem|on-premises|
    bare metal|self-hosted`),
  language: list(`TypeScript|JavaScript|Python|Rust|Golang|Java|Kotlin|Scala|Swift|Objective-C|C++|C#|
    Ruby|PHP|Elixir|Erlang|Haskell|OCaml|F#|Clojure|Dart|Lua|Perl|Julia|Zig|Nim|Crystal|Gleam|Racket|
    Fortran|COBOL|Groovy|Solidity|Mojo`),
  // Cities people live and work in: the world's large and well-known ones.
  place: list(`London|Paris|Berlin|Munich|Hamburg|Frankfurt|Cologne|Vienna|Zurich|Geneva|Basel|Amsterdam|
    Rotterdam|Brussels|Antwerp|Luxembourg|Copenhagen|Stockholm|Gothenburg|Oslo|Bergen|Helsinki|Reykjavik|
    Dublin|Cork|Edinburgh|Glasgow|Manchester|Birmingham|Liverpool|Leeds|Bristol|Cambridge|Oxford|Cardiff|
    Belfast|Lisbon|Porto|Madrid|Barcelona|Valencia|Seville|Bilbao|Rome|Milan|Turin|Naples|Florence|
    Bologna|Venice|Athens|Istanbul|Ankara|Warsaw|Krakow|Wroclaw|Prague|Brno|Budapest|Bucharest|Sofia|
    Belgrade|Zagreb|Ljubljana|Bratislava|Vilnius|Riga|Tallinn|Kyiv|Lviv|Moscow|Tbilisi|Yerevan|
    New York|Los Angeles|San Francisco|San Jose|San Diego|Seattle|Portland|Denver|Austin|Dallas|Houston|
    Chicago|Boston|Philadelphia|Washington|Atlanta|Miami|Orlando|Phoenix|Las Vegas|Salt Lake City|
    Minneapolis|Detroit|Pittsburgh|Nashville|Raleigh|Toronto|Montreal|Vancouver|Calgary|Ottawa|Quebec City|
    Mexico City|Guadalajara|Monterrey|Bogota|Medellin|Lima|Santiago|Buenos Aires|Montevideo|Sao Paulo|
    Rio de Janeiro|Tokyo|Osaka|Kyoto|Yokohama|Nagoya|Fukuoka|Sapporo|Seoul|Busan|Taipei|Hong Kong|Macau|
    Singapore|Kuala Lumpur|Bangkok|Hanoi|Ho Chi Minh City|Manila|Jakarta|Bali|Mumbai|Delhi|New Delhi|
    Bangalore|Bengaluru|Hyderabad|Chennai|Pune|Kolkata|Karachi|Lahore|Dhaka|Dubai|Abu Dhabi|Doha|Riyadh|
    Tel Aviv|Jerusalem|Cairo|Casablanca|Lagos|Nairobi|Accra|Cape Town|Johannesburg|Sydney|Melbourne|
    Brisbane|Perth|Adelaide|Auckland|Wellington|Christchurch|Shanghai|Beijing|Shenzhen|Guangzhou|Hangzhou|
    Chengdu|Wuhan|Nanjing|北京|上海|广州|深圳|杭州|成都|南京|苏州|武汉|西安|重庆|长沙|厦门|青岛|大连|天津|
    合肥|郑州|昆明|宁波|无锡|珠海|贵阳|南昌|福州|济南|沈阳|哈尔滨|兰州|海口|三亚|长春|石家庄|太原|呼和浩特|
    南宁|拉萨|乌鲁木齐|西宁|银川|东莞|佛山|温州|常州|扬州|徐州|烟台|洛阳|桂林|香港|澳门|台北|新加坡|东京|
    大阪|首尔|伦敦|巴黎|柏林|纽约|旧金山|洛杉矶|西雅图|悉尼|墨尔本|多伦多|温哥华`),
};

const HAN = /\p{Script=Han}/u;
/** A letter or digit of a spaced script: Chinese and Japanese runs are not words here (用的是UCloud的). */
const L = '[[\\p{L}\\p{N}]--[\\p{Script=Han}\\p{Script=Hiragana}\\p{Script=Katakana}]]';
/** A word, keeping inner dots and dashes and a trailing ++ or # (Fly.io, Objective-C, C++, C#). */
const WORD = new RegExp(`${L}(?:${L}|_|[.\\-](?=${L}))*(?:\\+\\+|#)?`, 'gv');

interface Index {
  /** Names as written, and lower-case forms of names of five letters or more. */
  exact: Map<string, LexiconShape>;
  folded: Map<string, LexiconShape>;
  /** Words in the longest Latin name. */
  longest: number;
  /** Chinese names, found by substring. */
  han: Array<[string, LexiconShape]>;
}

let index: Index | undefined;

/** Built on first use: word lookups, not one large pattern (which costs a scan per position). */
function lexiconIndex(): Index {
  if (index) return index;
  const built: Index = { exact: new Map(), folded: new Map(), longest: 1, han: [] };
  for (const [shape, names] of Object.entries(LEXICON) as Array<[LexiconShape, readonly string[]]>) {
    for (const name of names) {
      if (HAN.test(name)) {
        built.han.push([name, shape]);
        continue;
      }
      built.exact.set(name, shape);
      if (name.length >= 5) built.folded.set(name.toLowerCase(), shape);
      built.longest = Math.max(built.longest, name.split(' ').length);
    }
  }
  index = built;
  return built;
}

/** A well-known thing found in a text: its lower-case name, kind and offset. */
export interface LexiconMatch {
  key: string;
  shape: LexiconShape;
  at: number;
}

/** The well-known things a text names, at word edges ("postgresql-client" names none). */
export function lexiconMatches(text: string): LexiconMatch[] {
  const { exact, folded, longest, han } = lexiconIndex();
  const out: LexiconMatch[] = [];
  const words = [...text.matchAll(WORD)];
  for (let i = 0; i < words.length; i++) {
    const start = (words[i] as RegExpExecArray).index;
    for (let n = Math.min(longest, words.length - i); n >= 1; n--) {
      const last = words[i + n - 1] as RegExpExecArray;
      const phrase = text.slice(start, last.index + last[0].length);
      if (n > 1 && /\s{2,}|[^\p{L}\p{N}\s_.+#-]/u.test(phrase)) continue;
      const shape = exact.get(phrase) ?? folded.get(phrase.toLowerCase());
      if (shape === undefined) continue;
      out.push({ key: phrase.toLowerCase(), shape, at: start });
      i += n - 1;
      break;
    }
  }
  if (HAN.test(text)) {
    for (const [name, shape] of han) {
      const at = text.indexOf(name);
      if (at >= 0) out.push({ key: name, shape, at });
    }
  }
  return out.sort((a, b) => a.at - b.at);
}
