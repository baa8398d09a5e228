/**
 * The vocabulary of the demo world: handles, places, guilds and quest titles. All invented for
 * this project; the generator combines them with a seeded PRNG.
 */

/** Player handles, in player order: player n (n <= 60) is HANDLES[n - 1]; later players add `-n`. */
export const HANDLES: readonly string[] = (
  "nova quill rune ember sable orbit juniper kestrel lumen mosaic nimbus onyx pixel quasar ripple saffron tundra umber vesper willow xenon yarrow zephyr aster bramble cinder delta echo fable garnet " +
  "harbor indigo jasper kiwi lotus marble nectar opal pebble quartz raven sprout thistle ultra velvet wren yonder zinnia acorn birch comet dune fern glade haze iris jolt koi lark mint"
).split(" ");

export const FIRST_NAMES: readonly string[] =
  "Ada Bo Cleo Dario Eun Femi Greta Hiro Ines Jonas Kavya Luca Mei Nadia Oscar Priya Quentin Rosa Sami Tomas Uma Viktor Wanjiru Ximena Yusuf Zoe".split(
    " ",
  );

export const LAST_INITIALS = "ABCDEFGHIJKLMNOPRSTVWZ";

/** [location, ISO country code, IANA time zone] */
export const PLACES = [
  ["Lisbon", "PT", "Europe/Lisbon"],
  ["Berlin", "DE", "Europe/Berlin"],
  ["Nairobi", "KE", "Africa/Nairobi"],
  ["Lagos", "NG", "Africa/Lagos"],
  ["Bangalore", "IN", "Asia/Kolkata"],
  ["Tokyo", "JP", "Asia/Tokyo"],
  ["Seoul", "KR", "Asia/Seoul"],
  ["Melbourne", "AU", "Australia/Melbourne"],
  ["Buenos Aires", "AR", "America/Argentina/Buenos_Aires"],
  ["Mexico City", "MX", "America/Mexico_City"],
  ["Toronto", "CA", "America/Toronto"],
  ["Austin", "US", "America/Chicago"],
  ["Portland", "US", "America/Los_Angeles"],
  ["Tallinn", "EE", "Europe/Tallinn"],
  ["Kyiv", "UA", "Europe/Kyiv"],
  ["São Paulo", "BR", "America/Sao_Paulo"],
] as const;

export const EMOJIS = ["🌱", "🔥", "🐙", "🦉", "🚀", "🌊", "🎨", "🛠️", "📜", "🧭", "🍄", "⚡"] as const;
export const PRONOUNS = ["she/her", "he/him", "they/them", null] as const;

export const BIO_OPENINGS = [
  "Builder of small tools that make big communities work.",
  "Designer who likes interfaces that explain themselves.",
  "Writes docs nobody has to ask about twice.",
  "Onboards newcomers and keeps the tavern warm.",
  "Funds public goods and argues about mechanism design.",
  "Smart-contract tinkerer, occasional auditor.",
  "Makes videos about people building the future of work.",
  "Runs experiments in decentralized governance.",
] as const;

export const BIO_ENDINGS = [
  "Ask me about DAOs.",
  "Currently learning Rust.",
  "Looking for a guild to build with.",
  "Happy to pair on anything.",
  "Mostly around on weekends.",
  "Coffee first, then quests.",
] as const;

/** The hand-written guilds of the demo, after the two the migrations seed. */
export const DEMO_GUILDS = [
  {
    guildname: "raidguild",
    name: "Raid Guild",
    type: "SERVICE",
    description: "A collective of builders who take on client raids together.",
  },
  {
    guildname: "seedclub",
    name: "Seed Club",
    type: "FUNDING",
    description: "An incubator that helps communities launch their first tokens.",
  },
  {
    guildname: "tavernkeepers",
    name: "Tavern Keepers",
    type: "SOCIAL",
    description: "Hosts of onboarding calls, game nights and newcomer tours.",
  },
  {
    guildname: "metalab",
    name: "MetaLab",
    type: "RESEARCH",
    description: "Studies how online communities coordinate, and publishes what it finds.",
  },
] as const;

export const GUILD_TYPES = ["PROJECT", "SERVICE", "RESEARCH", "SOCIAL", "FUNDING"] as const;
export const NETWORKS = ["mainnet", "xdai", "polygon"] as const;

export const QUEST_VERBS = ["Write", "Design", "Build", "Review", "Translate", "Host", "Record", "Document", "Test", "Organize"] as const;
export const QUEST_OBJECTS = [
  "an onboarding guide",
  "a landing page",
  "a Discord bot",
  "the quest board filters",
  "a newcomer tour",
  "a governance proposal",
  "a podcast episode",
  "the guild directory",
  "a smart-contract audit checklist",
  "a community call",
  "a skill tree explainer",
  "the season report",
] as const;

export const SUBMISSION_TEXTS = [
  "Done: see the link for the draft.",
  "Finished it over the weekend, feedback welcome.",
  "First version is up; happy to iterate.",
  "Completed together with two friends from the guild.",
  "Here it is. Took longer than planned, but it is thorough.",
] as const;
