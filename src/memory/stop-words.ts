/**
 * Words a question is made of that say nothing about what to find ("where is the…",
 * "…是什么"). They are dropped from keyword queries only; notes are indexed whole.
 * Kept short on purpose: a content word wrongly listed here can never be searched alone.
 */
const ENGLISH = `a about an and are as at be been but by can could did do does for from had has
have how i if in into is it its me my of on or our s should so than that the their them then
there these they this to up us was we were what when where which who whom why will with would
you your whats wheres whos tell know remember please d ll re ve t`;

const CHINESE = `的 了 是 吗 呢 吧 啊 呀 么 嘛 什么 哪 哪里 哪儿 哪个 怎么 怎样 怎么样 为什么 谁 几 多少
我 你 他 她 它 我们 你们 他们 她们 这 那 这个 那个 这些 那些 在 有 和 与 及 或 也 都 就 还 又
请 告诉 知道 记得 一下 吗 么 呢 被 把 给 对 从 到 向 让 会 能 要 想 可以`;

const JAPANESE = `の は が を に で と も へ や か です ます どう どこ なに 何 だれ 誰 いつ`;

const STOP = new Set(`${ENGLISH} ${CHINESE} ${JAPANESE}`.split(/\s+/).filter(Boolean));

export function isStopWord(word: string): boolean {
  return STOP.has(word);
}
