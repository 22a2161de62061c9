/**
 * Generator of the memory-quality retrieval set: months of daily-note files holding
 * multi-session conversations (English and Chinese, one language per file), where a
 * few lines state a fact about a person and the rest is everyday chatter that mentions
 * the same people. Each question asks about one fact, in natural wording that shares
 * only some words with the note, and names the file and line of its evidence.
 * Deterministic for a seed, so results can be compared across runs.
 */
export interface QualityQuestion {
  lang: "en" | "zh";
  question: string;
  path: string;
  /** 1-based line of the evidence in `path`. */
  line: number;
}

export interface QualitySet {
  files: Map<string, string>;
  questions: QualityQuestion[];
}

function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Fill = Record<string, string>;
interface FactTemplate {
  fact: string;
  question: string;
  slots: Record<string, string[]>;
}

const EN_NAMES = `Anna Ben Clara David Emma Felix Grace Henry Iris Jack Kate Leo Mia Noah Olivia
Paul Quinn Rosa Sam Tina Uma Victor Wendy Xavier Yara Zoe Adam Bella Carl Diana Eric Fiona
George Hannah Ivan Julia Kevin Laura Mark Nina Oscar Petra Ryan Sofia Tom Ursula Vera Will`.split(
  /\s+/,
);

const EN_FACTS: FactTemplate[] = [
  {
    fact: "{name} works as a {job} at the {place} downtown.",
    question: "Where does {name} work?",
    slots: {
      job: ["nurse", "teacher", "chef", "mechanic", "librarian", "pharmacist", "architect"],
      place: ["hospital", "school", "bakery", "garage", "library", "museum", "bank"],
    },
  },
  {
    fact: "{name} said the birthday party is on {month} {day} this year.",
    question: "When is {name}'s birthday?",
    slots: {
      month: ["March", "April", "June", "August", "October", "December"],
      day: ["3rd", "9th", "14th", "21st", "28th"],
    },
  },
  {
    fact: "{name} adopted a {animal} called {pet} from the shelter.",
    question: "What pet did {name} adopt?",
    slots: {
      animal: ["puppy", "kitten", "rabbit", "parrot", "hamster"],
      pet: ["Biscuit", "Pepper", "Mochi", "Ziggy", "Luna", "Rocky"],
    },
  },
  {
    fact: "Turns out {name} is allergic to {food}, so no {food} at dinner.",
    question: "What is {name} allergic to?",
    slots: { food: ["peanuts", "shellfish", "strawberries", "gluten", "sesame", "eggs"] },
  },
  {
    fact: "{name} moved to {city} last {season} for a new job.",
    question: "Which city did {name} move to?",
    slots: {
      city: ["Lisbon", "Denver", "Osaka", "Toronto", "Melbourne", "Prague"],
      season: ["spring", "summer", "autumn", "winter"],
    },
  },
  {
    fact: "{name} drives a {color} {car} these days.",
    question: "What car does {name} drive?",
    slots: {
      color: ["red", "silver", "black", "white", "green"],
      car: ["Volvo", "Toyota", "Subaru", "Fiat", "Tesla"],
    },
  },
  {
    fact: "{name} plays the {instrument} in a jazz band on weekends.",
    question: "Which instrument does {name} play?",
    slots: { instrument: ["saxophone", "piano", "drums", "trumpet", "bass", "violin"] },
  },
  {
    fact: "{name} is learning {language} before the trip to {country}.",
    question: "What language is {name} studying?",
    slots: {
      language: ["Spanish", "Japanese", "Italian", "Korean", "Portuguese"],
      country: ["Peru", "Japan", "Italy", "Korea", "Brazil"],
    },
  },
];

const EN_CHATTER = [
  "Had a long day, the weather was grey and windy.",
  "{name} and I talked about the football game last night.",
  "We should order pizza again on Friday, {name} liked it.",
  "Remember to water the plants and take out the recycling.",
  "{name} sent photos from the weekend hike, the view was great.",
  "The new series everyone talks about is too slow for me.",
  "Coffee with {name} in the morning, we mostly complained about traffic.",
  "The printer at home is broken again, need to call someone.",
  "{name} asked if we can borrow the ladder next week.",
  "Spent the evening cleaning the kitchen and listening to podcasts.",
  "Traffic was terrible on the bridge this morning.",
  "{name} recommended a book about the history of maps.",
  "Groceries: milk, bread, apples, rice and tea.",
  "The kids had a school play, {name} came to watch.",
  "Booked the dentist for next Tuesday afternoon.",
  "{name} is thinking about painting the living room blue.",
];

const ZH_NAMES =
  `张伟 李娜 王芳 刘洋 陈静 杨帆 赵磊 黄丽 周杰 吴敏 徐强 孙悦 马超 朱琳 胡军 郭婷 何平 高峰
林雪 罗兰 梁宇 宋佳 郑浩 谢颖 韩梅 唐宁 冯涛 董洁 萧然 程远 曹阳 袁媛 邓超 许晴 傅明 沈丹`.split(
    /\s+/,
  );

const ZH_FACTS: FactTemplate[] = [
  {
    fact: "{name}现在在{city}工作，是一名{job}。",
    question: "{name}在哪里工作？",
    slots: {
      city: ["深圳", "杭州", "成都", "南京", "西安", "武汉"],
      job: ["护士", "老师", "厨师", "程序员", "会计", "医生"],
    },
  },
  {
    fact: "听说{name}的生日是{month}月{day}日，要准备礼物。",
    question: "{name}的生日是哪天？",
    slots: {
      month: ["一", "三", "五", "七", "九", "十一"],
      day: ["二", "八", "十五", "二十", "二十六"],
    },
  },
  {
    fact: "{name}上个月养了一只叫{pet}的{animal}。",
    question: "{name}养了什么宠物？",
    slots: {
      pet: ["豆豆", "球球", "花花", "毛毛", "乐乐"],
      animal: ["小狗", "小猫", "兔子", "鹦鹉", "仓鼠"],
    },
  },
  {
    fact: "原来{name}对{food}过敏，聚餐时要注意。",
    question: "{name}对什么过敏？",
    slots: { food: ["花生", "海鲜", "芒果", "鸡蛋", "牛奶", "芝麻"] },
  },
  {
    fact: "{name}去年{season}搬到了{city}。",
    question: "{name}搬到哪个城市了？",
    slots: {
      season: ["春天", "夏天", "秋天", "冬天"],
      city: ["青岛", "厦门", "昆明", "大连", "苏州", "长沙"],
    },
  },
  {
    fact: "{name}最近开一辆{color}的{car}。",
    question: "{name}开的是什么车？",
    slots: {
      color: ["红色", "白色", "黑色", "银色", "蓝色"],
      car: ["丰田", "比亚迪", "大众", "本田", "特斯拉"],
    },
  },
  {
    fact: "{name}周末在乐队里弹{instrument}。",
    question: "{name}弹什么乐器？",
    slots: { instrument: ["吉他", "钢琴", "贝斯", "琵琶", "古筝"] },
  },
  {
    fact: "{name}正在学{language}，准备去{country}旅行。",
    question: "{name}在学哪种语言？",
    slots: {
      language: ["日语", "法语", "西班牙语", "韩语", "德语"],
      country: ["日本", "法国", "西班牙", "韩国", "德国"],
    },
  },
];

const ZH_CHATTER = [
  "今天天气阴沉，风很大，下班后直接回家了。",
  "和{name}聊了昨晚的足球比赛，大家都很激动。",
  "周五要不要再点一次披萨？{name}上次很喜欢。",
  "记得给阳台的花浇水，顺便把垃圾拿下去。",
  "{name}发了周末爬山的照片，风景很好。",
  "最近大家都在追的那部剧节奏太慢了。",
  "早上和{name}喝咖啡，主要在抱怨堵车。",
  "家里的打印机又坏了，得找人来修。",
  "{name}问下周能不能借一下梯子。",
  "晚上打扫了厨房，一边听播客。",
  "早上桥上堵得厉害，迟到了十分钟。",
  "{name}推荐了一本讲地图历史的书。",
  "要买的东西：牛奶、面包、苹果、大米和茶叶。",
  "孩子们学校有演出，{name}也来看了。",
  "约了下周二下午看牙医。",
  "{name}在考虑把客厅刷成蓝色。",
];

function fill(template: string, values: Fill): string {
  return template.replace(/\{(\w+)\}/g, (_, key: string) => values[key] ?? key);
}

function pick<T>(rand: () => number, items: readonly T[]): T {
  return items[Math.floor(rand() * items.length)] as T;
}

interface LanguageSpec {
  lang: "en" | "zh";
  names: string[];
  facts: FactTemplate[];
  chatter: string[];
  speaker: [string, string];
}

const LANGUAGES: LanguageSpec[] = [
  { lang: "en", names: EN_NAMES, facts: EN_FACTS, chatter: EN_CHATTER, speaker: ["me", "box"] },
  { lang: "zh", names: ZH_NAMES, facts: ZH_FACTS, chatter: ZH_CHATTER, speaker: ["我", "助手"] },
];

/**
 * `days` daily-note files per language, each with 3-5 sessions of chatter; every
 * (person, fact) pair is stated once, on a random day, and asked about once.
 */
export function generateQualitySet(seed = 7, days = 240): QualitySet {
  const rand = rng(seed);
  const files = new Map<string, string>();
  const questions: QualityQuestion[] = [];
  for (const spec of LANGUAGES) {
    const lines: string[][] = Array.from({ length: days }, () => []);
    const pending: { day: number; text: string; question: string }[] = [];
    for (const name of spec.names) {
      for (const template of spec.facts) {
        const values: Fill = { name };
        for (const [slot, options] of Object.entries(template.slots)) {
          values[slot] = pick(rand, options);
        }
        pending.push({
          day: Math.floor(rand() * days),
          text: fill(template.fact, values),
          question: fill(template.question, values),
        });
      }
    }
    for (let day = 0; day < days; day++) {
      const sessions = 3 + Math.floor(rand() * 3);
      const facts = pending.filter((p) => p.day === day);
      const out = lines[day] as string[];
      for (let s = 0; s < sessions; s++) {
        const hour = String(8 + s * 3).padStart(2, "0");
        out.push("", `## Session ${hour}:00`, "");
        const count = 6 + Math.floor(rand() * 6);
        for (let i = 0; i < count; i++) {
          const who = spec.speaker[i % 2];
          out.push(`- ${who}: ${fill(pick(rand, spec.chatter), { name: pick(rand, spec.names) })}`);
        }
      }
      for (const fact of facts) {
        const at = 3 + Math.floor(rand() * (out.length - 3));
        out.splice(at, 0, `- ${spec.speaker[0]}: ${fact.text}`);
      }
      const date = new Date(Date.UTC(2025, 0, 1) + day * 86_400_000).toISOString().slice(0, 10);
      const path = `memory/${spec.lang === "en" ? "" : "zh/"}${date}.md`;
      const content = [`# ${date}`, ...out, ""].join("\n");
      files.set(path, content);
      const fileLines = content.split("\n");
      for (const fact of facts) {
        const line = fileLines.indexOf(`- ${spec.speaker[0]}: ${fact.text}`) + 1;
        questions.push({ lang: spec.lang, question: fact.question, path, line });
      }
    }
  }
  return { files, questions };
}
