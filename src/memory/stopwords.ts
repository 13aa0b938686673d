/** Common English words that carry little meaning on their own. */
export const STOPWORDS: ReadonlySet<string> = new Set(
  (
    'a an the and or but of to in on at for from by with as is are was were be been being am it its this that ' +
    'these those i me my we our you your he him his she her they them their there here do does did have has had ' +
    'will would can could should shall may might must not no so than then too very just also into about over ' +
    'which who whom what when where why how all any some such own same'
  ).split(' '),
);
