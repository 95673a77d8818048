//! The context patterns of the phrase rules ([`crate::lean::Dual`]:
//! discussion subjects, mention cues, example leads …), in one place so
//! that `build.rs` can parse and pack them ahead of time.

/// A context pattern (see its use in `instruction.rs`).
pub(crate) const DISCUSSION_SUBJECT: &str = r"(?-u:\b)(?:prompt[ -]injections?|injection attacks?|injections?|jailbreaks?|jailbreaking|attackers?|adversar\w*|red[ -]team\w*|classifiers?|detectors?|guardrails?|filters?|researchers?|papers?|datasets?|benchmarks?|phishing|scam\w*|hackers?|malicious|(?:the|this|that|a) (?:phrase|string|sentence|payload)|(?:an?|the|one) (?:single |short |hidden |malicious )?(?:line|sentence|phrase|string|comment|instruction) (?:hidden|buried|embedded|planted|injected|found) (?:in|inside|into|on)|(?:known|common|classic|famous|typical|example) (?:attack|phrase|prompt|trick)s?|attempts? to (?:bypass|circumvent|get around|evade|trick|fool)|(?:intentos?|tentativas?|tentativi|tentativo|tentatives?) (?:de|di) (?:eludir|burlar|saltarse|evadir|contornar|contourner|aggirare)|(?:atacantes?|ataques?|inyecci[oó]n|atacante|angreifer\w*|angriff\w*|attaquants?|attaques?|attaccant[ei]|attacch?[io]|iniezion[ei]|aanvall\w*|aanval|saldırgan\w*|saldırı\w*|napastni\w*|atak\w*|atacator\w*|atac\w*|támadó\w*|támadás\w*|hyökkää\w*|angriber\w*|angrep\w*|angripare\w*|malicios\w*|malveillant\w*|malevol\w*|bösartig\w*|schädlich\w*|kwaadaardig\w*|frases?|satz|sätze|beispiel\w*|ejemplos?|exemples?|esempi[oi]?|exemplos?|filtros?|filtr[oi]|détecteurs?|detectores?|rilevator[ei]|detektor\w*|clasificador\w*|classificador\w*|classificateur\w*|classificator[ei]|klassifikator\w*))(?-u:\b)|támad|napadač|napadalc|forskar|frasen|útočník|útok|злоумышленник|атак|хакер|вредоносн|фраз|пример|фильтр|классификатор|зловмисник|επιτιθέμεν|επίθεσ|提示注入|越狱|攻击|攻撃|恶意|悪意|句子|这句话|例子|示例|过滤器|检测器|分类器|プロンプトインジェクション|공격|탈옥|المهاجم|هجوم|हमलावर|kẻ tấn công|tấn công|ผู้โจมตี|התוקפ|תוקפים|מתקיפים|ניסיונות? ל(?:עקוף|פרוץ|הערים)|попытк\w* обойти|спроб\w* обійти|مهاجم";

/// A context pattern (see its use in `instruction.rs`).
pub(crate) const MENTION_CUE: &str = r#"(?:^|[^\w])(?:such as|like|e\.g\.|for example|for instance|called|phrases?|sentences?|strings?|the words?|wording|saying|says|said|wrote|writes|write|typed?|types|contains?|containing|include[sd]?|including|means?|meaning of|example of|examples of|asks? (?:it|the model|the ai) to|tries? to|trying to|attempts? to|requests? to|demands? to|instructs? (?:it|the model|the ai) to|tells? (?:it|the model|the ai) to|told (?:it|the model|the ai) to|such prompts?|as|of|como|por ejemplo|por exemplo|llamad[oa]|chamad[oa]|dice|dijo|diz|disse|escribe|escribió|escribir|escreve|escreveu|contiene|contém|comme|par exemple|dit|écrit|écrire|contient|appelée?|wie|etwa|zum beispiel|z\.b\.|lautet|lauten|heißt|schreibt|schrieb|schreiben|enthält|namens|come|ad esempio|per esempio|scrive|scrivere|chiamat[oa]|как|например|типа|пишет|написал\w*|написать|написано|на кшталт|зокрема|содержит|словами|фразой|вроде|w rodzaju|typu|np\.|na przykład|zawierając\w*|brzmiąc\w*|například|napríklad|obsahující|като|например|от рода на|значи|означава|пишат|пише|казва|казват|означает|означає|znamená|znamenā|oznacza|bedeutet|signifie|significa|betekent|betyder|tarkoittaa|jelent|съдържащ\w*|наприклад|містить|zoals|bijvoorbeeld|bevat|till exempel|t\.ex\.|innehåller|gibi|örneğin|içeren|seperti|misalnya|contohnya|berisi|như|ví dụ|chẳng hạn|kiểu|npr\.|na primjer|na primer|primjerice|למשל|כגון)\s*[:：]?\s*(?:["'“‘`「『«„‹]|<!--)?\s*$|(?:比如|例如|诸如|像|写着|写道|包含|叫做)\s*["“「『]?\s*$"#;

/// A context pattern (see its use in `instruction.rs`).
pub(crate) const EXAMPLE_LEAD: &str = r#"(?i)(?:^|[^\w])(?:for example|for instance|e\.g\.|roughly|literally|translated|in translation|bijvoorbeeld|zum beispiel|z\.b\.|beispielsweise|etwa|par exemple|por ejemplo|por exemplo|ad esempio|per esempio|например|к примеру|na przykład|np\.|například|napríklad|till exempel|t\.ex\.|for eksempel|f\.eks\.|esimerkiksi|örneğin|misalnya|contohnya|ví dụ|chẳng hạn|például|de exemplu|наприклад|w rodzaju|na kształt|such as|на кшталт|зокрема|del tipo|du type|van het type)[^.!?\n:：]{0,40}[:：]\s*["'“‘`「『«„‹]?\s*$|(?:例如|比如|例えば|예를 들어)[^。！？\n:：]{0,20}[:：]\s*["“「『]?\s*$"#;

/// A context pattern (see its use in `instruction.rs`).
pub(crate) const ATTACK_TOPIC: &str = r"(?i)prompt[ -]?injections?|injection attacks?|jailbreak\w*|джейлбрейк\w*|промпт-?инъекц\w*|инъекци\w+ промпт\w*|ін['’]єкці\w+ промпт\w*|промпт-?ін['’]єкц\w*|inyecci[oó]n(?:es)? de (?:prompts?|instrucciones)|injection de prompts?|injeç(?:ão|ões) de prompts?|iniezion[ei] di prompt|(?:wstrzykiwani|wstrzykni[eę]ci)\w* (?:promptów|poleceń|instrukcji)|phishing\w*|фишинг\w*|фішинг\w*|提示(?:词)?注入|越狱攻击|プロンプトインジェクション|脱獄プロンプト|프롬프트\s*인젝션|탈옥 프롬프트|ג['׳]?יילברייק\w*|הזרקת (?:פרומפט\w*|הנחיות)";

/// A context pattern (see its use in `instruction.rs`).
pub(crate) const QUESTION_ABOUT: &str = r"(?-u:\b)(?:what (?:does|do|is|are|would)|why (?:do|does|would)|how (?:do|does|can|could|should|would) (?:i|we|you|one|models?|llms?|systems?|apps?|developers?) (?:detect|defend|prevent|protect|stop|block|handle|recogni[sz]e|mitigate|spot|filter)|explain|describe|is it safe|should i worry)(?-u:\b)";

/// A context pattern (see its use in `instruction.rs`).
pub(crate) const QUOTED_USE: &str = r"(?-u:\b)(?:translat\w*|homework|linguistics?|grammar|spelling|spell|pronounc\w*|meaning|means|definition|define)(?-u:\b)";

/// A context pattern (see its use in `instruction.rs`).
pub(crate) const DISCUSSING: &str = r"(?-u:\b)(?:blog(?:ging)?|article|essay|paper|thesis|research(?:ing)?|studying|lecture|talk about|learn(?:ing)? about|writing about|write about|summari[sz]e how|how (?:they|it|these|such attacks?) work|explain how|objašnjavamo kako|objašnjava kako|objasnit ćemo kako|explicamos c[oó]mo|expliquons comment|spieghiamo come|erklären wir, wie|examples? of|defen[cd]e against|protect against|detect(?:ing|ion)?)(?-u:\b)|объясняем,? как|пояснюємо,? як|בפוסט הזה|נסביר";

/// A context pattern (see its use in `instruction.rs`).
pub(crate) const MODIFIER_NOUN: &str = r"^[ \t\x22'”’»]+(?:phrases?|patterns?|strings?|wording|rules?|examples?|attacks?|payloads?|detectors?|detection|checks?|tests?|test cases?|heuristics?|signatures?|regex(?:es)?|classifiers?|templates?|samples?)(?-u:\b)";

/// Every context pattern (`build.rs` packs them; a test checks the
/// packing).
#[cfg_attr(not(test), allow(dead_code))]
pub(crate) const ALL: [&str; 8] = [
    DISCUSSION_SUBJECT,
    MENTION_CUE,
    EXAMPLE_LEAD,
    ATTACK_TOPIC,
    QUESTION_ABOUT,
    QUOTED_USE,
    DISCUSSING,
    MODIFIER_NOUN,
];
