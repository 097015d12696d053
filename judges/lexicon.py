"""Word lists the tokenizer reads: data only, no logic (see ``judges.tokens`` for the rules).

Every list here answers one question a careful reader of Chinese or English answers without
thinking: is this numeral a number, is this word a negation, does this word make a value
approximate. They are constants; changing one changes verdicts, so each is hashed into the judge
version with the module.
"""

from __future__ import annotations

# -- characters -------------------------------------------------------------------------------

# Traditional characters that change how an answer reads (times, numbers, negations, weather,
# places). NFKC does not fold them; an agent reading a Hong Kong or Taiwan app writes them.
TRADITIONAL = str.maketrans(
    dict(p for p in (
    "點点 鐘钟 時时 兩两 萬万 億亿 負负 週周 號号 後后 個个 頭头 淩凌 與与 沒没 無无 會会 雲云 陰阴 風风 東东 這这 來来 開开 "
    "幾几 禮礼 為为 對对 錯错 溫温 熱热 還还 邊边 關关 鬧闹 當当 現现 說说 別别 將将 級级 區区 氣气 濕湿 錢钱 價价 貴贵 買买 "
    "賣卖 張张 條条 們们 隻只 歲岁 車车 鐵铁 飛飞 機机 場场 島岛 廣广 蘇苏 嶺岭 漢汉 陽阳 寧宁 灣湾 鄭郑 長长 慶庆 瀋沈 發发 "
    "從从 準准 晝昼 際际 陣阵 轉转 霧雾 颱台 內内 間间 訂订 單单 麼么 裡里 裏里 於于 過过 經经 曆历 歷历 應应 該该 約约 僅仅 "
    "餘余 誤误 確确 認认 請请 輸输 驗验 證证 碼码 錄录 陸陆 帳账 戶户 壓压 積积 實实 數数 據据 網网 結结 設设 計计 響响 鈴铃 "
    "腦脑 電电 視视 頻频 聽听 讀读 書书 評评 論论 讚赞 載载 樂乐 歡欢 門门 項项 雙双 凍冻 雖虽 並并 絕绝 決决 畢毕 須须 鬥斗 "
    "簡简 較较 極极 種种 類类 錶表 層层 樓楼 齡龄 羅罗 馬马 亞亚 縣县 鎮镇 鄉乡 訊讯 則则 筆笔 幣币 圓圆 塊块 題题 節节 選选 "
    "擇择 剛刚 夠够 遠远 讓让 給给 嗎吗 啟启 閉闭 顯显 調调 換换 產产 務务 費费 隊队 罷罢 "
    ).split())
)

CN_DIGITS = {
    "零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4,
    "五": 5, "六": 6, "七": 7, "八": 8, "九": 9,
}
CN_SMALL_UNITS = {"十": 10, "百": 100, "千": 1000}
NUMERAL_CHARS = "零〇一二两三四五六七八九十百千万亿"

# -- numerals that are not numbers ------------------------------------------------------------

# Words in which a numeral character is not a count: function words, idioms, place names,
# brands and titles. A word that starts with a numeral is only recognised when no numeral or
# digit stands before it (三万一千 is 31000, not 三 + 万一 + 千).
NUMERAL_WORDS = (
    # function words and set phrases
    "一样 一下 一些 一直 一般 一定 一旦 一切 一致 一同 一边 一向 一律 一再 一概 一番 一会 一阵 一贯 "
    "一味 一并 一路 一齐 一共 一一 一模 一时 一带 一方面 一口气 一目了然 一丝 一流 一体 一起 "
    "一点点 一点儿 一会儿 一整 一半 一周 一星期 一礼拜 一来 一则 一经 一瞬 一早 "
    "一手 一生 一辈子 一心 一面 一旁 一带一路 一如既往 一无所知 一言为定 一动不动 一模一样 "
    "一天到晚 一年四季 一清二楚 一五一十 三心二意 七上八下 乱七八糟 十全十美 五颜六色 四面八方 "
    "千方百计 万无一失 三天两头 三番五次 七嘴八舌 九死一生 一举两得 独一无二 说一不二 接二连三 "
    "万一 万万 千万 十足 十字 零食 零钱 零件 零售 零星 零散 零下 零花 三明治 "
    # places
    "三亚 四川 三峡 三门峡 三明 三河 三沙 五台山 五指山 六安 六盘水 七台河 九江 九寨沟 十堰 "
    "八达岭 三里屯 五道口 四平 二连浩特 万州 万宁 千岛湖 三清山 五大连池 九华山 十三陵 一汽 "
    "二七 三元里 五角场 六里桥 九龙 九龙坡 七星 四惠 八一 三环 二环 四环 五环 六环 "
    # brands, titles and names
    "三星 一加 七喜 三只松鼠 五粮液 九阳 六神 七匹狼 三顿半 十月稻田 一点点 三体 "
    "八宝粥 五菱 七彩云南 三一重工 九牧 六个核桃 百度 千千静听 万达 一席 "
    # ordinal-like and kinship words
    "老大 老二 老三 老四 老五 老六 老七 老八 老九 老幺 初一 初二 初三 初四 初五 初六 初七 初八 "
    "初九 初十 二手 二维码 二哈 三观 四季 五金 六合 七夕 八卦 九州 两岸 两会 两边 两者 两样 "
    "三国 双十一"
).split()
# Words that end in a numeral; matched wherever they occur.
NUMERAL_SUFFIX_WORDS = "统一 唯一 之一 不一 逐一 专一 单一".split()

# After a numeral, these make it a count or a measure: units, measure words, clock and calendar
# words, approximation words. A numeral followed by any other Chinese character is part of a word
# (三亚, 四川, 三体, 二维码) and stays text. Longer entries first where one is a prefix.
MEASURE_WORDS = (
    "个 位 名 人 口 次 回 遍 趟 下 天 日 号 月 年 周 岁 元 块 角 毛 分 秒 刻 点 时 度 级 层 楼 米 里 "
    "斤 克 吨 升 倍 成 折 张 本 部 辆 台 件 条 支 只 双 对 套 份 杯 瓶 碗 盒 包 袋 箱 家 间 座 所 栋 户 "
    "场 局 届 期 章 页 篇 首 集 行 列 项 种 类 样 步 格 颗 粒 片 根 把 盏 扇 道 门 节 段 股 笔 批 群 排 "
    "串 滴 声 句 封 幅 棵 株 朵 匹 头 尾 架 艘 班 站 路 码 帧 圈 轮 代 辈 等 强 星 季 世 宗 例 单 票 "
    "多 余 来 几 半 左 上 出 以 至 到 比 分之 英 公 毫 厘 平 立 小 钟 礼 摄 华 瓦 伏 兆 寸 尺 丈 亩 "
    "卡 周岁 万 亿 千 百 十 或 和 与 及 加 减 乘 除 乃 又"
).split()

# -- negation ----------------------------------------------------------------------------------

# Chinese negators, longest first. A clause that holds one (outside the exceptions below) does not
# assert what it says.
CN_NEGATORS = (
    "并不是 并非 绝非 绝不 决不 从未 从不 从没 毫无 尚未 不曾 未曾 没有 没法 无法 不能 不会 不是 "
    "不可 不用 不需 不必 不要 不再 未能 没能 不太 别 甭 勿 毋 莫 未 无 不 没 非 否 "
    # A mistaken belief is not a claim: 很多人以为是《肖申克的救赎》 does not say it is.
    "误以为 误认为 以为"
).split()
# Words that contain a negator character but do not negate (不错 is praise, 未来 is the future,
# 非常 is "very", 无锡 a city). Checked before the negators.
NOT_NEGATIONS = (
    "不错 不少 不久 不断 不过 不仅 不但 不管 不论 不如 不得不 不禁 不免 不妨 差不多 了不起 对不起 "
    "不好意思 不光 不单 不只 不外乎 不然 要不 要不然 不一会 不由得 忍不住 少不了 免不了 不停 没准 "
    "别忘了 别忘记 别忘 不要忘了 不要忘记 不要忘 千万别忘 "
    "没错 埋没 出没 淹没 沉没 没关系 "
    "未来 未必然 "
    "无论 无锡 无线 无疑 毫无疑问 无误 确认无误 无限 无人机 无糖 无数 无比 无敌 无所谓 无需担心 万无一失 独一无二 "
    "无懈可击 无可挑剔 "
    "非常 非洲 南非 是非 除非 莫非 莫斯科 莫名 约莫 "
    "别的 别人 特别 区别 分别 类别 级别 告别 性别 识别 差别 个别 别墅 别名 别称 辨别 鉴别 "
    "是否 否则 否认 可以为 难以为 "
    # Double negations assert: 不会不下雨 is "it will rain", 不能不去 "must go".
    "不会不 不能不 不可能不 不是不 没有不 无不 不得不"
).split()
# Bounds: "不到1小时" is less than an hour (an approximation), not a denial; 看不到 is one.
BOUND_NEGATIONS = "不到 不足 不止 不超过 不少于 不低于 不高于 不多于 没有超过 没超过 不满".split()
# Negative words that name a state rather than deny a claim: 3条未读消息 states a count.
NEGATIVE_STATES = (
    "未读 未接 未完成 未付款 未支付 未发货 未使用 未处理 未领取 未签收 未评价 未入账 未到账 未认证 "
    "未出行 未开始 未结束 未读数 没读 无糖 不含税 未使用过 未出发"
).split()
# Passive and verbal denials: 被否定, 被驳回.
CN_DENIALS = "被否定 被否决 被驳回 被拒绝 被推翻 被撤销 被拒 被取消".split()
# A clause that is only one of these takes back the clause before it ("20度，不对，是22度").
# An apology alone (抱歉, sorry, actually) takes back only what the next clause corrects: it is a
# correcting lead (CORRECTION_LEADS_*), "北京20度，抱歉，上海的没查到" keeps the 20.
RETRACTIONS = (
    "不对 不是 不是的 错了 说错了 搞错了 看错了 数错了 更正 纠正 纠正一下 更正一下 哦不 不不 "
    "no wait correction no"
).split() + ["scratch that", "strike that", "never mind", "my mistake", "my bad", "sorry i misread", "i misread"]
# A clause that starts with one of these corrects what came before: the nearest earlier clause
# that holds a value of the kind it gives ("温度是20度，修正后为22度", "20, actually 22") is
# taken back, and the correcting clause is the claim.
CORRECTION_LEADS_CN = (
    "修正后为 修正后是 修正为 修正后 修正 更正为 更正后为 更正后 更正 纠正为 纠正一下 纠正 订正为 订正 改正为 改正 "
    "应为 准确地说 准确说 确切地说 实际上是 其实是 抱歉 对不起 不好意思"
).split()
CORRECTION_LEADS_EN = (
    "actually|correction|i mean|i meant|sorry|scratch that|strike that|make that|let me correct that|"
    "to correct|on second look|on closer look|wait|oops|or rather"
).split("|")
# Words that own up to a mistake. Values before one in its clause are withdrawn
# ("之前说的4个是我数错了"); a clause that withdraws no value of its own takes back the clause
# before it ("温度是20度，抱歉看错了，是22度").
# (有误差 is a margin of error, not a mistake: 有误 is matched only on its own.)
MISTAKE_WORDS_CN = "看错 说错 写错 数错 算错 搞错 弄错 记错 读错 听错 查错 填错 打错 错了 有误(?!差) 口误 笔误".split()
MISTAKE_WORDS_EN = (
    "misread|misspoke|miscounted|mistyped|my mistake|my bad|a mistake|was wrong|is wrong|were wrong|"
    "typo|scratch that|strike that|ignore that|disregard that|never mind"
).split("|")
# A withdrawn value named as said before: "之前说的4个是我数错了" withdraws the 4 wherever it stands.
SAID_BEFORE = ("之前说的", "之前写的", "前面说的", "前面写的", "刚才说的", "刚刚说的", "上面说的", "上面写的", "先前说的",
               "i said", "i wrote", "said earlier", "earlier")
# A likelihood of nothing denies what it is the likelihood of: 下雪的可能性为零, 概率为0, no chance.
# Correcting leads that take back the clause before even when they give no value of a known kind
# ("今天多云，更正为晴"); the others (抱歉, actually) need a value to know what they correct.
STRONG_CORRECTION_LEADS = ("修正", "更正", "纠正", "订正", "改正", "应为", "correction", "scratch that", "strike that",
                           "let me correct that", "to correct", "make that", "or rather")
NULL_CHANCE_CN = r"(?:可能性|概率|几率|机率|机会|可能)\s*(?:为|是|:|等于)?\s*(?<![\d.])(?:0(?:\.0+)?\s*%?|0成)(?![\d.])"
NULL_CHANCE_EN = (r"(?:chance|chances|probability|likelihood|odds|possibility)\s+(?:of\s+[a-z ]{1,20}?\s+)?"
                  r"(?:is|are|was|at|of)\s+(?<![\d.])(?:zero|0\s*%?|nil|none)(?![\d.])"
                  r"|(?<![\d.])(?:zero|0\s*%|nil)\s+(?:chance|chances|probability|likelihood|possibility)")
EN_NEGATORS = (
    "not never no none neither nor cannot without unable isn't aren't wasn't weren't won't can't "
    "couldn't doesn't don't didn't shouldn't wouldn't hasn't haven't hadn't mustn't nobody nothing "
    "nowhere fail fails failed"
).split() + ["instead of", "rather than"]  # "instead of sunny, it is cloudy" denies sunny
# English phrases with a negator word that assert (no doubt) or bound (no more than) instead.
EN_NOT_NEGATIONS = (
    "not only|no doubt|no later than|no more than|no less than|no fewer than|not bad|nothing but"
).split("|")

# Words that say an item is switched off: an alarm "是关着的" is not among the enabled ones.
OFF_STATES = tuple(
    "关着 关闭 关掉 关了 已关 关上 是关的 没开 没有开 没打开 未开 未开启 未启用 停用 禁用 已停用 已禁用 已划掉 已取消 "
    "off disabled closed inactive cancelled canceled".split()
) + ("turned off", "switched off")

# Words that label an amount as money taken off, not the amount itself: a card "¥125 已优惠25元"
# shows the amount 125, not 25.
DISCOUNT_WORDS = (
    "已优惠 优惠了 优惠券 优惠 立减 已减 减免 满减 折扣 已省 节省 省了 返现 抵扣 红包抵扣 券后减 红包 券 "
    "discount saved save off"
).split()

# Words that leave an item out of a list: "7:00、14:30、22:50，除了18:45".
EXCLUSIONS = ("除了", "除去", "不包括", "不含", "以外", "except", "excluding", "apart from", "other than")

# -- clauses -----------------------------------------------------------------------------------

# Words that start a new clause even without a comma: the negation of one side does not reach
# the other ("不是A而是B", "not A but B").
CLAUSE_WORDS_CN = "但是 但 可是 不过 然而 而是 而且 并且 所以 因此 因为 同时 另外 此外 其他 其余 其它 然后".split()
CLAUSE_WORDS_EN = "but however although though whereas instead rather so because then while".split()

# -- approximations, bounds, hedges -----------------------------------------------------------

# Approximation words beside one value state that value (行程大约1小时30分钟 states 1小时30分,
# 约20度 states 20度): an agent reading a screen softens what it read, it does not change it.
# Before a span of two times they make it an estimate that states neither (大概7点到8点).
APPROX_BEFORE_CN = (
    "大约是 大约为 大约有 大约 大概是 大概有 大概 约莫 约为 约有 约 大致 大体 估计 预计 差不多是 差不多有 差不多"
).split()
APPROX_BEFORE_EN = "about|around|approximately|approx|roughly|some|circa".split("|")
APPROX_AFTER_UNIT = ("左右", "上下", "or so", "ish")
# Bounds before a value: the value that follows is a limit, not the value (不到1小时 is no 59分,
# nearly 20 no 20). Phrases, "|"-separated: split on spaces, "at most" would make "at" a bound.
BOUND_BEFORE_CN = (
    "将近 接近 几乎 超过 不到 不足 少于 多于 高于 低于 大于 小于 至少 最少 "
    "至多 不止 不超过 不少于 不低于 不高于 起码 顶多 最多"
).split()
BOUND_BEFORE_EN = (
    "nearly|almost|over|under|more than|less than|fewer than|at least|at most|up to|above|below"
).split("|")
# After a value (directly after the digits, or after its unit): a bound (二十多度, 1个多小时,
# 30分钟以内, 三十出头).
BOUND_AFTER_DIGITS = ("多", "余", "来", "几", "+")
BOUND_AFTER_UNIT = ("出头", "开外", "以上", "以下", "以内", "之内")
# Between two values of one kind: the answer offers either, so it states neither.
HEDGE_WORDS = ("或者是", "或者", "或是", "或", "还是", "要么", "也可能是", "也可能", "也许", "或许", "or", "either")
# English words that offer a second value as another possibility: "6:40, maybe 7:40".
EN_HEDGE_WORDS = ("or", "maybe", "perhaps", "possibly")
# Between two values of one kind: a range (both ends are stated, neither is the value).
RANGE_WORDS = ("~", "～", "-", "–", "—", "到", "至", "to")

# -- times ---------------------------------------------------------------------------------------

# Words that say an H:MM is a duration, not a clock time: 用时1:30, 全程 1:30, took 2:15, 1:30的车程.
# Without one (会议定在下午3:20, 晚上9:00到家) an H:MM in a sentence is a time of day.
DURATION_CUES_BEFORE = (
    "用时 耗时 历时 全程 时长 总时长 车程 行程 航程 路程 飞行 行驶 驾驶 通勤 需时 花了 花费 持续 共用 总共用 "
    "播放时长 通话时长 睡了 睡眠 计时 倒计时 运行了"
).split() + ["duration", "took", "takes", "lasted", "lasts", "elapsed", "runtime", "run time",
             "travel time", "flight time", "journey time", "total time"]
# After an H:MM, these make it a time of day whatever came before (行程：9:00出发).
CLOCK_WORDS_AFTER = (
    "出发 到达 抵达 到家 到站 开始 结束 起飞 降落 发车 开车 关门 开门 营业 响 见面 之前 以前 之后 以后 前 后 整 准时"
).split() + ["pm", "am", "o'clock", "departure", "arrival", "start"]
# These say it only right before the value (需要1:30, 要2:15): 需要在3:20前到 names a time.
DURATION_CUES_DIRECT = ("需要", "需", "要", "花", "用了", "要花")
DURATION_CUES_AFTER = ("的车程", "的行程", "的路程", "的航程", "的时长", "车程", "行程", "路程", "的时间", "小时", "个小时",
                       "hours", "hour", "hrs", "long")

SMALL_HOURS = ("凌晨",)
NIGHT_HOURS = ("半夜", "深夜", "午夜", "夜里", "夜间", "晚间", "夜晚")
MORNING = ("清晨", "早晨", "早上", "上午", "今早", "明早", "昨早", "今晨", "明晨", "早")
EVENING = ("傍晚", "黄昏")
EVENING_NIGHT = ("晚上", "今晚", "明晚", "昨晚", "晚")
NOON = ("中午", "正午")
AFTERNOON = ("下午", "午后")
PERIOD_WORDS = SMALL_HOURS + NIGHT_HOURS + MORNING + EVENING + EVENING_NIGHT + NOON + AFTERNOON

EN_NUMBER_WORDS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14,
    "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20,
    "thirty": 30, "forty": 40, "fifty": 50,
}

# -- versions ------------------------------------------------------------------------------------

# Words after which a number is a version, kept whole (MIUI 12.5 is not 12 and not 5).
VERSION_WORDS = (
    "android 安卓 ios ipados macos windows harmonyos 鸿蒙 miui hyperos 澎湃os emui magicos coloros "
    "originos oneui one ui flyme funtouch realme ui 版本号 版本 系统版本 version ver python java "
    "chrome 微信 v"
).split(" ")


# -- English names of Chinese values ------------------------------------------------------------

# An answer in English names a weather condition or a wind direction in English: "light rain"
# states 小雨, "east wind" 东风. Each English name is matched whole ("east wind" is not in
# "southeast wind").
_DIRS = {"东": "east", "南": "south", "西": "west", "北": "north"}
EN_NAMES: dict[str, tuple[str, ...]] = {
    "晴": ("sunny", "clear"),
    "多云": ("cloudy", "partly cloudy"),
    "阴": ("overcast",),
    "小雨": ("light rain",),
    "中雨": ("moderate rain",),
    "大雨": ("heavy rain",),
    "阵雨": ("showers", "rain showers"),
    "雷阵雨": ("thunderstorms", "thunderstorm", "thundershowers"),
    **{f"{a}风": (f"{_DIRS[a]} wind", f"{_DIRS[a]}erly") for a in _DIRS},
    # 东南风 is the southeast wind: English says north/south first.
    **{f"{b}{a}风": (f"{_DIRS[a]}{_DIRS[b]} wind", f"{_DIRS[a]}-{_DIRS[b]} wind", f"{_DIRS[a]}{_DIRS[b]}erly")
       for a in "南北" for b in "东西"},
}
