#!/usr/bin/env python3
"""One-off authoring helper: adds the multilingual cue rules to
crates/closure/data/cues.json (kept for review; the JSON file is the source)."""
import json, sys

P = "crates/closure/data/cues.json"
rules = json.load(open(P, encoding="utf-8"))
by_id = {r["id"]: r for r in rules}

def R(id, name, cls, lang, pattern, desc, ex, neg, **kw):
    r = {"id": id, "name": name, "class": cls, "lang": lang}
    r.update({k: v for k, v in kw.items() if k in ("explicit",)})
    r["pattern"] = pattern
    r.update({k: v for k, v in kw.items() if k not in ("explicit",)})
    r["description"] = desc
    r["examples"] = ex
    r["negative_examples"] = neg
    return r

new = []

# ---- English additions -------------------------------------------------
out = by_id["closure.cue.out.en"]
out["pattern"] = (r"root[\s-]cause|diagnos(?:is|ed|e)|regression|bisect(?:ed)?|workaround|conclusion|"
                  r"reproduced|culprit|turned\s+out|outage|incident|deadlock|race\s+condition|memory\s+leak|"
                  r"stack\s+trace|segfault|troubleshoot(?:ing|ed)?|debugg(?:ed|ing)|failing\s+tests?|"
                  r"post[\s-]?mortem|figure\s+(?:it|this|that)\s+out|find\s+out\s+why|dig\s+into|"
                  r"look\s+into\s+(?:it|this|why)|investigate|why\s+(?:does|do|did|is|are)\s+(?:\S+\s+){1,12}?(?:fail|failing|break|crash|hang|time\s+out)")
out["description"] = "Diagnostic work: a root cause, a reproduction, an investigation asked for."
out["examples"] = ["The root cause was a stale cache.", "Figure it out and tell me.",
                   "Why does my renewal fail from cron?", "We reproduced the deadlock."]
out["negative_examples"] = ["A fixture file.", "Verify nothing.", "Fixed the typo.",
                            "Why does ls show colors?"]
new.append(R("closure.cue.out.en.done", "outcome-done", "outcome", "en",
    r"the\s+fix|fixed|resolved|upgraded|migrated|migration|verified",
    "A completed fix, upgrade or migration: a weak outcome signal that needs tool work behind it.",
    ["Fixed the flaky test by pinning the seed.", "We migrated the DB to Postgres 16."],
    ["A fixture file.", "The prefix is long."], weak=True))
new.append(R("closure.cue.pref.en.whenever", "whenever-you", "preference", "en",
    r"(?:whenever|every\s+time|each\s+time|any\s*time)\s+you\s+(?:write|reply|answer|give|suggest|make|create|draft|send|run|use|recommend|summari[sz]e|explain|generate|commit|open|review|book|schedule|plan|translate)|"
    r"starting\s+(?:today|now|tomorrow)|from\s+(?:today|tomorrow)\s+on|as\s+of\s+(?:today|now),?\s+(?:please\s+)?(?:use|write|reply|answer|call|always|never)",
    "A standing instruction tied to every future occasion of a task ('Whenever you write Python for me, …').",
    ["Whenever you write Python for me, use type hints.", "Starting today, reply in German.", "Every time you open a PR, tag me."],
    ["Whenever you're ready.", "Starting the server now."], explicit=True))
new.append(R("closure.cue.pref.en.person", "self-description", "preference", "en",
    r"I(?:'m|\s+am)\s+an?\s+(?:[\w-]+\s+){1,6}?(?:person|guy|gal|type|user)|"
    r"use\s+(?:that|this|it)\s+for\s+(?:anything|everything|all)|for\s+anything\s+[\w-]+[\s-]related",
    "A durable self-description or a request to apply something to everything of a kind.",
    ["I'm a Celsius and 24-hour-clock person.", "Use that for anything weather related.",
     "I am a tabs-over-spaces type."],
    ["The person I met was nice.", "Use that for the header."]))
imp = by_id["closure.cue.bnd.imperative"]
new.append(R("closure.cue.bnd.en.clause", "negated-imperative-clause", "boundary", "en",
    r"^(?:[\w'-]+\s+){0,3}[\w'-]+\s*[,;:]\s*(?:(?:and|but|please|so)\s+)*(?P<c>(?:don't|do\s+not|dont|never)\s+(?:ever\s+)?(?P<w>\w+))",
    "A prohibition opening the second clause of a sentence after a short lead-in of at most four words ('Going forward, never schedule…').",
    ["Going forward, never schedule anything on Wednesdays.", "One more thing: don't push to main."],
    ["If it fails, don't worry.", "I tried, but never mind.", "Well, don't know.", "She said it quietly to him, and dont look back."],
    explicit=True, exclude=imp["exclude"]))
new.append(R("closure.cue.bnd.en.never-want", "I-never-want", "boundary", "en",
    r"I\s+(?:never|don't\s+ever|do\s+not\s+ever|no\s+longer)\s+want|I\s+don't\s+want\s+(?:any|more)",
    "The user states what they never want: a boundary.",
    ["I never want meetings before 10am.", "I don't want any more newsletters."],
    ["I never wanted this job.", "I don't want to bother you."], explicit=True))
new.append(R("closure.cue.bnd.en.conditional", "if-I-ever-tell-you", "boundary", "en",
    r"if\s+I\s+(?:ever|later|someday|one\s+day|at\s+some\s+point)\s+(?:\w+\s+){0,2}?(?:tell|ask|say|want|beg|insist|type)|"
    r"even\s+if\s+I\s+(?:\w+\s+){0,2}?(?:tell|ask|say|insist|beg)",
    "A standing instruction about what to do if the user later says something: a boundary.",
    ["If I ever tell you I want to text my ex at 2am, talk me out of it.",
     "Even if I ask you to, don't delete the backups."],
    ["If I said that, I was wrong.", "If you ever see this error, restart."],
    explicit=True, conditional=True))
new.append(R("closure.cue.hyp.en.disavow", "disavowal", "hypothetical", "en",
    r"(?:I'm|I\s+am)\s+not\s+saying|(?:that|this|it)\s+doesn't\s+mean|(?:that|this|it)\s+does\s+not\s+mean|"
    r"not\s+(?:as\s+)?a\s+(?:standing|general|permanent)\s+(?:rule|preference|instruction)|I\s+didn't\s+(?:say|mean)\s+(?:that\s+)?(?:I|you)",
    "The user disavows a rule or preference: its cues are not a standing instruction.",
    ["That doesn't mean I always want tables.", "Not a standing preference, just this once."],
    ["I'm saying we should always test."]))
new.append(R("closure.cue.gov.en.memory", "memory-rule", "governance", "en",
    r"new\s+rule\s+for\s+(?:memory|notes|the\s+knowledge|my\s+notes)|(?:memory|archive|notes?|knowledge)\s+rule|"
    r"memory\s+hygiene|(?:goes?|go|belongs?|lives?|live)\s+(?:in|into|under)\s+(?:the\s+)?(?:MEMORY\.md|USER\.md|knowledge/[\p{L}\p{N}_/.-]*|memory/|the\s+daily\s+notes?|the\s+knowledge\s+base)|"
    r"(?:runbooks?|procedures|docs|notes)\s+(?:live|go|belong)\s+(?:in|under)|only\s+(?:stable\s+)?facts\s+(?:about\s+me\s+)?(?:go\s+)?in(?:to)?\s+memory",
    "A rule about what memory holds or where knowledge lives: governance, even when phrased as a prohibition.",
    ["New rule for memory: nothing short-lived goes into MEMORY.md.",
     "Archive rule going forward: fold daily notes into one file.",
     "Runbooks live in knowledge/ops/."],
    ["What do you have in memory about my car?", "I forgot the rule."], explicit=True))
new.append(R("closure.cue.prog.en", "completed-step", "progress", "en",
    r"progress\s+so\s+far|so\s+far\s+I|I(?:'ve|\s+have)\s+(?:already\s+)?\w+(?:ed|en|t)|"
    r"I\s+(?:found|created|fixed|moved|sorted|scanned|added|wrote|updated|ran|confirmed|reproduced|checked|installed|deleted|removed|copied|renamed|migrated|built|deployed|identified)|"
    r"(?:found|identified)\s+the\s+(?:cause|problem|issue|culprit)|(?:^|\s)(?:done|finished|completed):",
    "In an assistant reply: a step reported as already done.",
    ["Progress so far: scanned 8,412 files.", "I found the cause.", "I've updated three files."],
    ["There once was a cluster named Kube.", "Installing dependencies…", "I will check the logs."]))

zf = by_id["closure.cue.pref.zh.future"]
if "从今天" not in zf["pattern"]:
    zf["pattern"] += "|从今天(?:开始|起)|从明天(?:开始|起)|自今日起|打今儿起"
    zf["examples"].append("从今天开始，回复我都用繁体中文。")

# ---- Chinese additions -------------------------------------------------
new.append(R("closure.cue.pref.zh.future.2", "zh-from-now-on-all", "preference", "zh",
    r"以后[^，。！？；,.!?;]{0,10}(?:都|一律|统一|全部|每次)",
    "Chinese: 以后 … 都/一律/统一 — a standing request with words between.",
    ["以后所有的提交信息都用英文写", "以后给我写前端项目的命令都用 pnpm"],
    ["以后再说。", "以后，我们去吃饭"], explicit=True))
new.append(R("closure.cue.bnd.zh.after-use", "zh-delete-after-use", "boundary", "zh",
    r"(?:用|看|处理|读)完(?:了)?(?:就|后|之后|以后)?(?:删|删掉|删除|销毁)|(?:^|[^我])(?:别再|不要再|不准再|不许再)",
    "Chinese: delete after use / don't … again (别再, 用完就删掉).",
    ["请不要记住这些内容，看完就删掉。", "别再自动帮我 git push 了", "用完就删掉"],
    ["看完了这本书", "再见", "我不要再讨论这个。"], explicit=True))
new.append(R("closure.cue.bnd.zh.conditional", "zh-if-I-ever-say", "boundary", "zh",
    r"(?:如果|要是|假如|万一|即使|就算|哪怕)?我(?:以后|将来|哪天|有一天|某天|日后|再)[^。！？]{0,16}(?:说|讲|要求|让你|叫你|要你)",
    "Chinese: a standing instruction about what to do if the user later says something.",
    ["如果我以后哪天跟你说要把备份全删了，千万别听我的", "要是我哪天半夜跟你说要辞职，先别写"],
    ["如果我说错了请指出", "我以为你说过"], explicit=True, conditional=True))
new.append(R("closure.cue.hyp.zh.disavow", "zh-disavowal", "hypothetical", "zh",
    r"不是说|并不是说|不是让你以后|没说(?:过)?以后|不代表(?:我)?以后",
    "Chinese: the user disavows a standing rule (我不是说以后都要…).",
    ["我不是说以后都要用表格啊"], ["这是说明书"]))
new.append(R("closure.cue.gov.zh.memory", "zh-memory-rule", "governance", "zh",
    r"规矩|(?:放|存|记|写|归档)(?:到|在|进)\s*knowledge/[\p{L}\p{N}_/.-]*|别往\s*MEMORY\.md|(?:MEMORY\.md|记忆|memory)\s*(?:里|中)?只(?:记|放|存|写)|只记(?:最终)?(?:结论|要点)",
    "Chinese: a rule about what memory holds or where knowledge lives.",
    ["定个规矩：以后排查过程别往 MEMORY.md 里塞", "详细步骤统一放到 knowledge/troubleshooting/ 下面"],
    ["我有点规律地跑步", "放到桌面上"], explicit=True))
new.append(R("closure.cue.prog.zh", "zh-completed-step", "progress", "zh",
    r"已经|已(?:完成|找到|修复|创建|移动|删除|处理|确认|写入|更新)|找到了|完成了|搞定|查到了|定位到|发现了|原因是",
    "Chinese: in an assistant reply, a step reported as done.",
    ["已经把 2014 年的照片整理好了", "找到了原因"], ["正在查询 12306…"]))

# ---- Spanish -------------------------------------------------------------
new += [
R("closure.cue.pref.es.future", "es-from-now-on", "preference", "es",
  r"de\s+ahora\s+en\s+adelante|a\s+partir\s+de\s+(?:ahora|hoy|mañana)|desde\s+hoy|desde\s+ahora|en\s+adelante|(?:la\s+)?próxima\s+vez\s+que|"
  r"siempre\s+que\s+(?:te|me)|cada\s+vez\s+que\s+(?:te|me)|(?:usa|utiliza|escribe|responde|contesta)\s+siempre|"
  r"siempre\s+(?:usa|utiliza|escribe|responde|contesta|pon|incluye|pregúntame)|por\s+defecto",
  "Spanish: a standing instruction about future behaviour.",
  ["De ahora en adelante, usa ejemplos con PostgreSQL.", "A partir de ahora responde en inglés.", "Siempre usa tabulaciones."],
  ["Ahora mismo no puedo.", "Siempre llueve en abril."], explicit=True),
R("closure.cue.pref.es.remember", "es-remember", "preference", "es",
  r"^(?:(?:oye|por\s+favor|y|también|ah)[,]?\s+)*(?:recuerda|acuérdate|apunta|anota|ten\s+en\s+cuenta|no\s+olvides|toma\s+nota|guarda\s+(?:esto|eso|que))|"
  r"recuérdalo|tenlo\s+(?:en\s+cuenta|presente)|ten\s+presente|(?:quiero|necesito)\s+que\s+(?:recuerdes|tengas\s+en\s+cuenta)|guárdalo|apúntalo|anótalo|que\s+no\s+se\s+te\s+olvide",
  "Spanish: a request to remember or note something.",
  ["Recuerda que soy vegetariana.", "Apunta que mi hija empieza el cole el 2 de septiembre.", "Guárdalo."],
  ["Recuerdo cuando usábamos Jenkins.", "¿Te acuerdas del puerto?"], explicit=True),
R("closure.cue.pref.es.prefer", "es-prefer", "preference", "es",
  r"prefiero|me\s+gusta(?:n)?\s+más|mi\s+(?:zona\s+horaria|cumpleaños|correo|teléfono|nombre)\s+es|me\s+llamo|llámame|"
  r"soy\s+(?:vegetarian[oa]|vegan[oa]|alérgic[oa]|zurd[oa]|daltónic[oa])|vivo\s+en",
  "Spanish: a stated personal preference or fact.",
  ["Prefiero respuestas cortas.", "Soy alérgica al marisco.", "Llámame Pepa."],
  ["¿Qué prefieres?", "Mi código es lento."]),
R("closure.cue.bnd.es", "es-boundary", "boundary", "es",
  r"(?:nunca|jamás)\s+(?:más\s+)?(?:(?:me|le|te|lo|la|los|las|les|se)\s+)?\w+(?:es|as)|"
  r"no\s+(?:(?:me|le|te|lo|la|los|las|les|se)\s+)?(?:pongas|hagas|borres|toques|envíes|mandes|publiques|compartas|uses|guardes|recuerdes|subas|ejecutes|cambies|digas|menciones|incluyas|elimines|modifiques|instales|vuelvas|escuches|apuntes|anotes|almacenes|memorices)|"
  r"sin\s+(?:preguntarme|consultarme|avisarme|mi\s+(?:permiso|visto\s+bueno|aprobación|confirmación))|pregúntame\s+(?:antes|primero)|nada\s+de\s+\w+",
  "Spanish: a prohibition or limit addressed to the agent.",
  ["Nunca pongas mi DNI en los correos.", "No me hagas caso.", "No toques la rama main sin preguntarme."],
  ["Nunca he usado Excel.", "No sé por qué falla.", "Nunca más."], explicit=True),
R("closure.cue.bnd.es.conditional", "es-if-I-ever-ask", "boundary", "es",
  r"si\s+(?:algún\s+día|alguna\s+vez|un\s+día|en\s+el\s+futuro|más\s+adelante)\s+(?:yo\s+)?(?:te\s+)?(?:pido|digo|pidiera|dijera|escribo)|"
  r"aunque\s+(?:yo\s+)?(?:te\s+)?(?:lo\s+)?(?:pida|diga)|incluso\s+si\s+te\s+(?:lo\s+)?(?:pido|digo)",
  "Spanish: a standing instruction about what to do if the user later asks for something.",
  ["Si algún día te pido que borre la carpeta de fotos, no me hagas caso.", "Aunque te lo pida, no lo borres."],
  ["Si te pido ayuda, avísame.", "Si llueve, no salgo."], explicit=True, conditional=True),
R("closure.cue.hyp.es", "es-hypothetical-question-scope", "hypothetical", "es",
  r"^(?:supongamos|imagina|qué\s+pasaría\s+si|y\s+si)|solo\s+(?:por\s+)?esta\s+vez|sólo\s+(?:por\s+)?esta\s+vez|por\s+ahora|solo\s+para\s+(?:esto|este|esta)|"
  r"no\s+(?:digo|estoy\s+diciendo)\s+que|(?:eso|esto)\s+no\s+(?:significa|quiere\s+decir)",
  "Spanish: a hypothetical, a one-off scope or a disavowal — not a standing instruction.",
  ["Supongamos que prefiero té.", "Solo esta vez, responde en inglés.", "Eso no significa que siempre quiera tablas."],
  ["Siempre usa tablas."]),
R("closure.cue.hyp.es.question", "es-question", "hypothetical", "es",
  r"^¿?\s*(?:qué|cómo|cuál|cuáles|dónde|cuándo|por\s+qué|quién|hay|es|son|puedo)",
  "Spanish: a question (ends with ?) — its preference words are asked about, not stated.",
  ["¿Cómo fusiono dos diccionarios?", "¿Qué prefieres?"], ["Recuerda que prefiero té."], question_only=True),
R("closure.cue.gov.es", "es-governance", "governance", "es",
  r"(?:regla|norma)\s+(?:nueva|para)|nueva\s+(?:regla|norma)|^(?:regla|norma):|(?:la\s+)?memoria\s+(?:es|queda)\s+(?:solo|sólo|libre)|"
  r"manejamos\s+la\s+memoria|en\s+la\s+memoria\s+(?:solo|sólo|nada)|nada\s+de\s+\w+[^.]{0,40}en\s+la\s+memoria|"
  r"(?:van|va|viven?|se\s+guardan)\s+en\s+knowledge/[\p{L}\p{N}_/.-]*|base\s+de\s+conocimiento",
  "Spanish: a rule about memory or where knowledge lives.",
  ["Regla nueva: las guías de despliegue van en knowledge/despliegues/.", "Para que quede claro cómo manejamos la memoria: nada de contraseñas."],
  ["La regla de tres.", "No tengo memoria para eso."], explicit=True),
R("closure.cue.out.es", "es-outcome", "outcome", "es",
  r"causa(?:\s+raíz)?|averigua|investiga|diagnóstic\w*|reproduje|el\s+problema\s+(?:era|es)|se\s+debía\s+a|por\s+qué\s+falla",
  "Spanish: diagnostic work asked for or reported.",
  ["Averigua por qué falla.", "Ya encontré la causa."], ["Causalidad no es correlación."]),
R("closure.cue.prog.es", "es-completed-step", "progress", "es",
  r"ya\s+(?:encontré|descubrí|hice|terminé|creé|moví|instalé|revisé)|encontré|descubrí|reproduje|confirmé|creé|anoté|moví|instalé|terminé|he\s+\w+(?:ado|ido)",
  "Spanish: in an assistant reply, a step reported as done.",
  ["Ya encontré la causa.", "Anoté la fecha."], ["Estaba buscando los horarios…"]),
]

# ---- Portuguese ----------------------------------------------------------
new += [
R("closure.cue.pref.pt.future", "pt-from-now-on", "preference", "pt",
  r"daqui\s+(?:pra|para)\s+(?:frente|diante)|a\s+partir\s+de\s+(?:agora|hoje|amanhã)|de\s+hoje\s+em\s+diante|de\s+agora\s+em\s+diante|(?:da\s+)?próxima\s+vez\s+que|"
  r"sempre\s+que\s+(?:você|vc|eu)|toda\s+vez\s+que|(?:use|usa|escreva|responda)\s+sempre|sempre\s+(?:use|usa|escreva|responda|coloque|inclua|me\s+\w+)|por\s+padrão",
  "Portuguese: a standing instruction about future behaviour.",
  ["Daqui pra frente quero respostas curtas.", "A partir de agora responda em inglês.", "Sempre me copie nos e-mails."],
  ["Agora não dá.", "Sempre chove em abril."], explicit=True),
R("closure.cue.pref.pt.remember", "pt-remember", "preference", "pt",
  r"^(?:(?:e|também|por\s+favor|olha)[,]?\s+)*(?:lembra|lembre(?:-se)?|anota|anote|guarda\s+(?:isso|que)|grava\s+(?:isso|que)|salva\s+(?:isso|que)|não\s+esqueça|nao\s+esquece|tome\s+nota)|"
  r"(?:quero|preciso)\s+que\s+você\s+(?:lembre|guarde)|guarde\s+isso|lembre\s+disso|memoriza",
  "Portuguese: a request to remember or note something.",
  ["Lembra que sou vegetariana.", "Anota que a reunião mudou."], ["Lembro quando usávamos Jenkins."], explicit=True),
R("closure.cue.pref.pt.prefer", "pt-prefer", "preference", "pt",
  r"prefiro|quero\s+(?:respostas|sempre)|gosto\s+mais\s+de|me\s+chame\s+de|me\s+chamo|(?:pode|podem)\s+me\s+chamar\s+de|chame-me\s+de|meu\s+nome\s+é|meu\s+(?:fuso(?:\s+horário)?|aniversário|e-?mail|telefone)\s+é|"
  r"sou\s+(?:vegetarian[oa]|vegan[oa]|alérgic[oa]|daltônic[oa]|canhot[oa])|moro\s+em",
  "Portuguese: a stated personal preference or fact.",
  ["Prefiro respostas curtas.", "Me chame de Bia.", "Me chamo Rodrigo, mas pode me chamar de Digo."], ["Você prefere qual?"]),
R("closure.cue.bnd.pt", "pt-boundary", "boundary", "pt",
  r"(?:nunca|jamais)\s+(?:mais\s+)?(?:(?:me|te|se|lhe|o|a|os|as)\s+)?(?:mexa|toque|apague|delete|envie|mande|publique|compartilhe|use|guarde|salve|faça|rode|execute|suba|altere|mude|instale|poste|coloque|passe|diga|fale|grave)|"
  r"não\s+(?:(?:me|te|lhe|o|a)\s+)?(?:mexa|toque|apague|delete|envie|mande|publique|compartilhe|guarde|salve|faça|rode|execute|suba|altere|mude|instale|poste|coloque|grave|lembre|anote)|"
  r"sem\s+(?:me\s+)?(?:perguntar|consultar|avisar)|(?:me\s+)?pergunte\s+antes|sem\s+(?:a\s+)?minha\s+(?:autorização|permissão|aprovação)",
  "Portuguese: a prohibition or limit addressed to the agent.",
  ["Nunca mexa na branch main sem me perguntar antes.", "Não guarde mais nada sobre eles."],
  ["Nunca fui a Lisboa.", "Não sei."], explicit=True),
R("closure.cue.bnd.pt.conditional", "pt-if-I-ever-ask", "boundary", "pt",
  r"se\s+(?:algum\s+dia|um\s+dia|alguma\s+vez|no\s+futuro)\s+(?:eu\s+)?(?:te\s+)?(?:pedir|disser|falar|mandar)|"
  r"se\s+eu\s+(?:algum\s+dia|um\s+dia|alguma\s+vez)\s+(?:te\s+)?(?:pedir|disser|falar|mandar)|mesmo\s+que\s+eu\s+(?:te\s+)?(?:peça|diga|mande)",
  "Portuguese: a standing instruction about what to do if the user later asks for something.",
  ["Se algum dia eu te pedir para apagar as fotos, não apague.", "Mesmo que eu peça, não faça."],
  ["Se chover, fico em casa."], explicit=True, conditional=True),
R("closure.cue.hyp.pt", "pt-hypothetical-scope", "hypothetical", "pt",
  r"^(?:suponha|imagine|e\s+se|o\s+que\s+aconteceria\s+se)|só\s+(?:desta|dessa|esta|essa)\s+vez|(?:desta|dessa)\s+vez|por\s+enquanto|"
  r"não\s+(?:estou\s+dizendo|digo|quer\s+dizer)\s+que|isso\s+não\s+significa",
  "Portuguese: a hypothetical, a one-off scope or a disavowal.",
  ["Só desta vez, responda em inglês.", "Isso não significa que eu sempre queira tabelas."], ["Sempre use tabelas."]),
R("closure.cue.hyp.pt.question", "pt-question", "hypothetical", "pt",
  r"^(?:o\s+que|como|qual|quais|onde|quando|por\s+que|quem|é|será|tem)",
  "Portuguese: a question (ends with ?).",
  ["Quais são os feriados em junho?"], ["Prefiro respostas curtas."], question_only=True),
R("closure.cue.gov.pt", "pt-governance", "governance", "pt",
  r"regra(?:\s+nova)?\s*:|nova\s+regra|regra\s+(?:para|da|de)\s+(?:memória|notas)|a\s+memória\s+(?:é|deve|não\s+deve|só)|"
  r"(?:vão|vai|vivem|ficam?)\s+(?:em|no|na)\s+knowledge/[\p{L}\p{N}_/.-]*|base\s+de\s+conhecimento",
  "Portuguese: a rule about memory or where knowledge lives.",
  ["Regra: decisões de arquitetura vão em knowledge/adr/.", "A memória só deve ter fatos estáveis."],
  ["A regra do jogo.", "Perdi a memória."], explicit=True),
R("closure.cue.out.pt", "pt-outcome", "outcome", "pt",
  r"causa|descobri|investiga|investigue|diagnóstic\w*|reproduzi|o\s+problema\s+(?:era|é)|por\s+que\s+(?:falha|cai)",
  "Portuguese: diagnostic work asked for or reported.",
  ["A internet cai toda tarde. Investiga.", "Descobri a causa."], ["Causou boa impressão."]),
R("closure.cue.prog.pt", "pt-completed-step", "progress", "pt",
  r"já\s+(?:descobri|encontrei|fiz|terminei|criei|rodei)|descobri|encontrei|confirmei|criei|anotei|movi|instalei|terminei|rodei|corrigi|comecei",
  "Portuguese: in an assistant reply, a step reported as done.",
  ["Já descobri o padrão.", "Criei a skill."], ["Vou verificar."]),
]

# ---- German ----------------------------------------------------------------
new += [
R("closure.cue.pref.de.future", "de-from-now-on", "preference", "de",
  r"^\w+\s+(?:(?:mich|mir|bitte|uns)\s+){0,2}immer|ab\s+(?:sofort|jetzt|heute|morgen)|von\s+nun\s+an|künftig|zukünftig|in\s+zukunft|immer\s+wenn|jedes\s+mal,?\s+wenn|grundsätzlich|standardmäßig|beim\s+nächsten\s+mal",
  "German: a standing instruction about future behaviour.",
  ["Ab sofort bitte alle Datumsangaben im Format TT.MM.JJJJ.", "Künftig bitte auf Deutsch antworten.", "Antworte mir bitte immer auf Deutsch."],
  ["Sofort!", "Die Zukunft ist offen.", "Es regnet immer im April."], explicit=True),
R("closure.cue.pref.de.remember", "de-remember", "preference", "de",
  r"merk\s+dir|merke\s+dir|bitte\s+(?:merken|notieren|speichern)|zur\s+info(?:rmation)?:?\s+ich|merken\s+sie\s+sich|behalte?\s+(?:das\s+)?im\s+hinterkopf|notier(?:e)?\s+(?:dir|das|bitte)|vergiss\s+nicht|nicht\s+vergessen|denk\s+(?:bitte\s+)?dran|denke\s+daran",
  "German: a request to remember or note something.",
  ["Merk dir bitte: mein Steuerberater heißt Brandt.", "Vergiss nicht, dass ich Vegetarier bin."],
  ["Ich merke, dass es langsam ist."], explicit=True),
R("closure.cue.pref.de.prefer", "de-prefer", "preference", "de",
  r"ich\s+(?:bevorzuge|möchte\s+lieber|hätte\s+lieber|mag\s+lieber)|nenn\s+mich|ich\s+heiße|mein\s+name\s+ist|meine\s+(?:zeitzone|e-?mail(?:-adresse)?|telefonnummer)\s+ist|mein\s+geburtstag\s+ist|"
  r"ich\s+bin\s+(?:vegetarier(?:in)?|veganer(?:in)?|allergisch|farbenblind|linkshänder(?:in)?)|ich\s+wohne\s+in",
  "German: a stated personal preference or fact.",
  ["Ich bevorzuge kurze Antworten.", "Nenn mich Kathi."], ["Was bevorzugst du?"]),
R("closure.cue.bnd.de", "de-boundary", "boundary", "de",
  r"^(?:(?:und|aber|bitte|also)[,]?\s+)*(?:nie\s+wieder|nie\s+mehr|niemals|auf\s+keinen\s+fall)|^(?:(?:und|aber|bitte|also)[,]?\s+)*\w+\s+(?:(?:bitte|mir|mich|du|das|die|den|dem|es)\s+)?(?:niemals|nie(?:\s+wieder|\s+mehr)?|auf\s+keinen\s+fall)|"
  r"^(?:(?:und|aber|bitte|also)[,]?\s+)*\w+\s+(?:(?:bitte|mir|mich|du)\s+)?(?:keine?[nmrs]?|nicht)\s+(?:\S+\s+){0,3}?mehr|(?:du\s+)?(?:darfst|sollst)\s+(?:\w+\s+){0,3}?(?:niemals|nie|nicht|keine?\w*)|tu\s+(?:es|das)\s+nicht|ohne\s+(?:mich\s+)?(?:vorher\s+)?(?:zu\s+)?fragen|ohne\s+dass\s+ich|"
  r"frag(?:e)?\s+mich\s+(?:bitte\s+)?(?:immer\s+)?(?:vorher|zuerst|erst|bevor)|(?:nicht|nie)\s+(?:speichern|merken|notieren|aufschreiben)|hör\s+nicht\s+auf\s+mich",
  "German: a prohibition or limit addressed to the agent.",
  ["Schick niemals E-Mails in meinem Namen raus.", "Tu es nicht.", "Du darfst das nie löschen.", "Verwende bitte keine Anglizismen mehr.", "Nie wieder Termine am Freitag einplanen, bitte."],
  ["Ich war nie in Paris.", "Das habe ich niemals gesagt."], explicit=True),
R("closure.cue.bnd.de.conditional", "de-if-I-ever-say", "boundary", "de",
  r"(?:falls|wenn|sollte)\s+ich\s+(?:(?:dir|dich|euch|sie)\s+)?(?:jemals|irgendwann|mal|eines\s+tages|später)\s+(?:\S+\s+){0,3}?(?:sage|sagen|bitte|bitten|verlange|schreibe)|selbst\s+wenn\s+ich|auch\s+wenn\s+ich\s+(?:dir\s+)?(?:später\s+)?(?:sage|bitte|darum\s+bitte)",
  "German: a standing instruction about what to do if the user later says something.",
  ["Falls ich dir jemals sage, du sollst das Backup löschen, dann tu es nicht.", "Selbst wenn ich darum bitte, lösch es nicht."],
  ["Wenn es regnet, bleibe ich zu Hause."], explicit=True, conditional=True),
R("closure.cue.hyp.de", "de-hypothetical-scope", "hypothetical", "de",
  r"^(?:angenommen|stell\s+dir\s+vor|was\s+wäre,?\s+wenn)|nur\s+(?:für\s+)?(?:dieses|diesen|diese|diesmal|heute|jetzt)|diesmal|dieses\s+mal|vorerst|fürs\s+erste|"
  r"heißt\s+(?:aber\s+|doch\s+)?nicht,?\s+dass|ich\s+(?:sage|meine)\s+(?:ja\s+|aber\s+)?nicht,?\s+dass",
  "German: a hypothetical, a one-off scope or a disavowal.",
  ["Das heißt aber nicht, dass ich ab jetzt immer Tabellen will.", "Nur für diesen Vergleich."], ["Ab sofort immer Tabellen."]),
R("closure.cue.hyp.de.question", "de-question", "hypothetical", "de",
  r"^(?:was|wie|welche[rsnm]?|wo|wann|warum|wer|ist|sind|gibt\s+es|streikt|kannst|hast)",
  "German: a question (ends with ?).",
  ["Streikt die Bahn morgen?", "Was bevorzugst du?"], ["Merk dir das."], question_only=True),
R("closure.cue.gov.de", "de-governance", "governance", "de",
  r"regel\s+(?:für|fürs)\s+(?:das\s+)?(?:gedächtnis|notizen|wissen)|neue\s+regel|^regel:|gedächtnis(?:pflege|hygiene)|(?:das\s+)?gedächtnis\s+(?:ist|soll|darf)\s+nur|"
  r"(?:gehören|kommen|liegen)\s+(?:in|nach|unter)\s+knowledge/[\p{L}\p{N}_/.-]*|wissensdatenbank|wissensbasis",
  "German: a rule about memory or where knowledge lives.",
  ["Regel fürs Gedächtnis: alte Einträge aufräumen.", "Runbooks gehören nach knowledge/ops/."],
  ["In der Regel schon.", "Mein Gedächtnis ist schlecht."], explicit=True),
R("closure.cue.out.de", "de-outcome", "outcome", "de",
  r"ursache|finde?\s+(?:raus|heraus)|woran\s+(?:das|es)\s+liegt|diagnose|reproduziert|fehlerursache|untersuch\w*",
  "German: diagnostic work asked for or reported.",
  ["Finde raus, woran das liegt.", "Ursache gefunden."], ["Keine Ahnung."]),
R("closure.cue.prog.de", "de-completed-step", "progress", "de",
  r"ich\s+habe\s+(?:\S+\s+){0,5}?(?:ge\w+t|ge\w+en|\w+iert)|gefunden|erledigt|fertig|abgeschlossen",
  "German: in an assistant reply, a step reported as done.",
  ["Ich habe den Kanal gewechselt.", "Ursache gefunden."], ["Ich schaue nach."]),
]

# ---- French ----------------------------------------------------------------
new += [
R("closure.cue.pref.fr.future", "fr-from-now-on", "preference", "fr",
  r"désormais|dorénavant|à\s+partir\s+d(?:e\s+maintenant|\'aujourd\'hui|e\s+demain)|à\s+l'avenir|(?:la\s+)?prochaine\s+fois\s+que|chaque\s+fois\s+que|à\s+chaque\s+fois|"
  r"(?:utilise|écris|réponds)\s+toujours|toujours\s+(?:utiliser|écrire|répondre)|par\s+défaut",
  "French: a standing instruction about future behaviour.",
  ["Désormais, tutoie-moi.", "À l'avenir, réponds en anglais."], ["Maintenant, on mange.", "L'avenir est incertain."], explicit=True),
R("closure.cue.pref.fr.remember", "fr-remember", "preference", "fr",
  r"souviens-toi|rappelle-toi|retiens|n'oublie\s+pas|garde(?:-le|-la)?\s+(?:bien\s+)?(?:en\s+tête|à\s+l'esprit)|note\s+(?:bien\s+)?que|prends\s+note|mémorise|enregistre\s+(?:ça|cela|que)|pour\s+info,?\s+je",
  "French: a request to remember or note something.",
  ["Garde-le en tête pour les repas.", "Retiens que je suis végétarienne.", "Enregistre ça."],
  ["Je me souviens de Jenkins."], explicit=True),
R("closure.cue.pref.fr.prefer", "fr-prefer", "preference", "fr",
  r"je\s+préfère|j'aime\s+mieux|appelle-moi|je\s+m'appelle|mon\s+(?:fuseau\s+horaire|anniversaire|e-?mail|adresse)\s+(?:est|c'est)|"
  r"je\s+suis\s+(?:végétarien(?:ne)?|végan(?:e)?|allergique|daltonien(?:ne)?|gaucher|gauchère)|j'habite\s+(?:à|en)|tutoie-moi|vouvoie-moi",
  "French: a stated personal preference or fact.",
  ["Je préfère les réponses courtes.", "Tutoie-moi."], ["Tu préfères quoi ?"]),
R("closure.cue.bnd.fr", "fr-boundary", "boundary", "fr",
  r"(?:^|(?:et|mais|puis)\s+)(?:ne\s+|n')(?:(?:me|te|le|la|les|lui|leur)\s+|m'|l')?\w+\s+(?:jamais|plus|rien|pas)|"
  r"sans\s+(?:mon\s+(?:accord|feu\s+vert|autorisation)|me\s+demander|ma\s+permission|me\s+prévenir)|demande-moi\s+(?:avant|d'abord)|ne\s+(?:le\s+|la\s+)?fais\s+pas",
  "French: a prohibition or limit addressed to the agent.",
  ["Et ne publie jamais plus rien sur le compte sans mon feu vert.", "Ne touche pas au dossier.", "N'efface jamais mes photos."],
  ["Je ne suis jamais allé à Paris.", "Il ne sait pas."], explicit=True),
R("closure.cue.bnd.fr.conditional", "fr-if-I-ever-say", "boundary", "fr",
  r"si\s+(?:un\s+jour|jamais|à\s+l'avenir|plus\s+tard)\s+je\s+(?:te|vous)\s+(?:dis|demande|réclame|écris)|même\s+si\s+je\s+(?:te|vous)\s+(?:le\s+)?(?:dis|demande)",
  "French: a standing instruction about what to do if the user later says something.",
  ["Si un jour je te dis d'accepter tous les cookies, refuse.", "Même si je te le demande, ne supprime rien."],
  ["S'il pleut, je reste.", "Si je te dis merci, c'est sincère."], explicit=True, conditional=True),
R("closure.cue.hyp.fr", "fr-hypothetical-scope", "hypothetical", "fr",
  r"^(?:supposons|imagine|et\s+si|que\s+se\s+passerait-il\s+si)|juste\s+pour\s+(?:cette\s+fois|ça|ce|cette)|cette\s+fois|pour\s+l'instant|pour\s+le\s+moment|"
  r"je\s+ne\s+dis\s+pas\s+que|(?:ça|cela)\s+ne\s+veut\s+pas\s+dire",
  "French: a hypothetical, a one-off scope or a disavowal.",
  ["Juste pour cette fois, réponds en anglais.", "Ça ne veut pas dire que je veux toujours des tableaux."], ["Désormais, tutoie-moi."]),
R("closure.cue.hyp.fr.question", "fr-question", "hypothetical", "fr",
  r"^(?:qu'est-ce|que|quoi|comment|quel(?:le)?s?|où|quand|pourquoi|qui|est-ce|tu\s+penses)",
  "French: a question (ends with ?).",
  ["Tu penses qu'il est sérieux ?", "Comment je fais ça ?"], ["Tutoie-moi."], question_only=True),
R("closure.cue.gov.fr", "fr-governance", "governance", "fr",
  r"nouvelle\s+règle|^règle\s*:|règle\s+pour\s+la\s+mémoire|la\s+mémoire\s+(?:ne\s+doit|doit|sert)|(?:vivent|vont|sont\s+rangées?|se\s+trouvent)\s+dans\s+knowledge/[\p{L}\p{N}_/.-]*|base\s+de\s+connaissances",
  "French: a rule about memory or where knowledge lives.",
  ["Les procédures d'astreinte vivent dans knowledge/astreinte/.", "La mémoire ne doit contenir que des faits stables."],
  ["En règle générale, oui.", "J'ai une mauvaise mémoire."], explicit=True),
R("closure.cue.out.fr", "fr-outcome", "outcome", "fr",
  r"cause|diagnosti\w*|reproduit|le\s+problème\s+(?:venait|était)|pourquoi\s+(?:ça|cela)\s+(?:plante|échoue|bloque)|trouve\s+pourquoi",
  "French: diagnostic work asked for or reported.",
  ["Trouve pourquoi ça plante.", "La cause était un cache."], ["Bonne journée."]),
R("closure.cue.prog.fr", "fr-completed-step", "progress", "fr",
  r"j'ai\s+(?:\w+\s+){0,2}?\w+(?:é|i|u|is|it|ert)|(?:trouvé|terminé|corrigé|créé|déplacé|vérifié)e?s?",
  "French: in an assistant reply, a step reported as done.",
  ["J'ai supprimé la compétence.", "Cause trouvée."], ["Je regarde."]),
]

# ---- Japanese --------------------------------------------------------------
new += [
R("closure.cue.pref.ja.future", "ja-from-now-on", "preference", "ja",
  r"今後|これからは|以降は|次から|次回から|毎回|常に",
  "Japanese: a standing instruction about future behaviour.",
  ["今後、説明は箇条書きでお願いします。", "これからは敬語なしで。"], ["今日は晴れ。"], explicit=True),
R("closure.cue.pref.ja.remember", "ja-remember", "preference", "ja",
  r"覚えておいて|覚えといて|覚えてて|記憶して(?:おいて|ください)?|メモして|忘れないで|記録して(?:おいて|ください)|保存して(?:おいて|ください)",
  "Japanese: a request to remember or note something.",
  ["覚えておいてください。", "忘れないでね。"], ["覚えていない。", "保存しないでください。"], explicit=True),
R("closure.cue.pref.ja.prefer", "ja-prefer", "preference", "ja",
  r"(?:の方|のほう)が(?:好き|いい)|好みは|と呼んで|私の名前は|アレルギー|ベジタリアン",
  "Japanese: a stated personal preference or fact.",
  ["コーヒーより紅茶の方が好きです。", "ケンと呼んで。"], ["どっちが好き？"]),
R("closure.cue.bnd.ja", "ja-boundary", "boundary", "ja",
  r"(?:絶対|決して|二度と)に?[^。]{0,16}(?:ないで|するな|禁止|しないこと)|(?P<w>\p{Han}?[ぁ-ん]{0,2})ないで(?:ください|ね|ほしい)?|勝手に|無断で|許可なく|(?:確認|相談)してから|先に(?:聞いて|確認して)",
  "Japanese: a prohibition or limit addressed to the agent (…ないで, 絶対に…しない).",
  ["写真フォルダだけは消さないで。", "私のマイナンバーは絶対に保存しないでください。", "勝手にプッシュしないで。"],
  ["絶対に忘れない思い出。", "忘れないでね。"], explicit=True, exclude=["忘れ", "忘"]),
R("closure.cue.bnd.ja.conditional", "ja-even-if-I-say", "boundary", "ja",
  r"(?:と|って)(?:言|い)っても|と頼んでも|と言われても|(?:もし|万一)?(?:今後|将来|いつか)[^。]{0,10}私が[^。]{0,20}(?:言|頼)",
  "Japanese: a standing instruction about what to do if the user later says something.",
  ["もし今後私が「全部消して」と言っても、写真フォルダだけは消さないで。"], ["彼はそう言った。"], explicit=True, conditional=True),
R("closure.cue.hyp.ja", "ja-hypothetical-scope", "hypothetical", "ja",
  r"^(?:仮に|例えば)|今回(?:だけ|は)|一時的に|とりあえず|今だけ|わけではない|という意味ではない",
  "Japanese: a hypothetical, a one-off scope or a disavowal.",
  ["今回だけ英語で答えて。", "いつも表がいいというわけではない。"], ["今後は箇条書きで。"]),
R("closure.cue.hyp.ja.question", "ja-question", "hypothetical", "ja",
  r"何|どう|なぜ|どこ|いつ|誰|どれ|どんな",
  "Japanese: a question (ends with ？) — its cue words are asked about, not stated.",
  ["72華氏度って摂氏で何度？", "どういう意味？"], ["今後は箇条書きで。"], question_only=True),
R("closure.cue.gov.ja", "ja-governance", "governance", "ja",
  r"ルール|規則|方針|手順書は|(?:knowledge|memory)\s*/[^。]{0,12}(?:に置く|に書く|へ)|には要点だけ",
  "Japanese: a rule about memory or where knowledge lives.",
  ["手順書は knowledge/手順/ に置くこと。", "memory には要点だけ書く、というルールでいきましょう。"], ["今日は雨。"], explicit=True),
R("closure.cue.out.ja", "ja-outcome", "outcome", "ja",
  r"原因|再現|調査して|調べて|切り分け|障害",
  "Japanese: diagnostic work asked for or reported.",
  ["原因を調べて。", "原因は設定ミスでした。"], ["ありがとう。"]),
R("closure.cue.prog.ja", "ja-completed-step", "progress", "ja",
  r"しました|完了|見つけ(?:ました|た)|特定しました|済み|終わりました",
  "Japanese: in an assistant reply, a step reported as done.",
  ["設定を変更しました。", "原因を特定しました。"], ["確認中です…"]),
]

# ---- Reported speech: what follows is someone else's words -------------
new += [
R("closure.cue.rep.en", "reported-speech", "reported", "en",
  r"(?P<w>\w+)\s+(?:says|said|wrote|writes|told\s+(?:me|us|everyone|the\s+team)|asked\s+(?:me|us|everyone))(?:\s+that)?\s*[:,]?|"
  r"(?:saying|telling\s+(?:\w+\s+){1,3}?)that|(?:email|e-mail|message|letter|note|post|tweet|memo|announcement)\s+(?:to\s+(?:\w+\s+){1,3})?(?:saying|telling|announcing|that\s+says)",
  "Reported speech: cues after it are someone else's words (or the text of something to write), not the user's request.",
  ["The README says: never commit .env files.", "My boss said that from now on we log hours daily.", "Write an email to my team saying that we always review on Fridays."],
  ["I said it twice.", "As we said, ship it."], exclude=["i", "we", "you"]),
R("closure.cue.rep.es", "es-reported-speech", "reported", "es",
  r"(?:dice|dijo|escribió|escribe|ha\s+dicho|comentó|me\s+dijo|nos\s+dijo)(?:\s+que)?|diciendo\s+que|diciéndole(?:s)?\s+que|(?:correo|mensaje|carta|nota)\s+(?:a\s+(?:\w+\s+){1,3})?(?:diciendo|que\s+diga)",
  "Spanish: reported speech — cues after it are someone else's words.",
  ["Escribe un correo a mi jefe diciendo que a partir de ahora llegaré a las 9.", "Mi madre siempre dice que nunca es tarde."],
  ["Dime la hora."]),
R("closure.cue.rep.pt", "pt-reported-speech", "reported", "pt",
  r"(?:disse|diz|falou|escreveu|mandou|pediu|avisou)(?:\s+(?:que|no\s+\w+|pra\s+mim|para\s+mim))?\s*:?|dizendo\s+que|falando\s+que|(?:e-?mail|mensagem|carta)\s+(?:para\s+(?:\w+\s+){1,3})?(?:dizendo|avisando)",
  "Portuguese: reported speech — cues after it are someone else's words.",
  ["Meu professor disse que a partir de agora as provas serão online.", "Meu chefe mandou no Slack: sempre me copie."],
  ["Diga-me a hora."]),
R("closure.cue.rep.de", "de-reported-speech", "reported", "de",
  r"(?:sagt|sagte|schrieb|schreibt|meint|meinte|hat\s+gesagt|hat\s+geschrieben|hat\s+mir\s+geschrieben)(?:\s+immer)?(?:,?\s+dass)?\s*[:,]?|(?:sagen|schreiben),?\s+dass|(?:mail|nachricht|brief)\s+(?:an\s+(?:\w+\s+){1,3})?(?:mit|dass|in\s+der)",
  "German: reported speech — cues after it are someone else's words.",
  ["Meine Oma sagt immer, man soll nie ohne Jacke rausgehen.", "Mein Chef hat geschrieben: ab sofort immer CC."],
  ["Sag mir die Uhrzeit."]),
R("closure.cue.rep.fr", "fr-reported-speech", "reported", "fr",
  r"(?:dit|disait|a\s+dit|écrit|a\s+écrit|m'a\s+dit|m'a\s+écrit|nous\s+a\s+dit)(?:\s+que)?\s*:?|disant\s+que|(?:lui|leur)\s+(?:dire|écrire)\s+que|(?:mail|courriel|message|lettre)\s+(?:à\s+(?:\w+\s+){1,3})?(?:disant|pour\s+dire)",
  "French: reported speech — cues after it are someone else's words.",
  ["Ma sœur m'a dit de ne jamais l'appeler après 22h.", "Écris un courriel disant que désormais on commence à 9h."],
  ["Dis-moi l'heure."]),
R("closure.cue.rep.zh", "zh-reported-speech", "reported", "zh",
  r"(?:他|她|他们|她们|老板|领导|同事|老师|妈妈|爸爸|朋友|客户|经理|主管|文档|README)(?:跟我|对我|和我)?(?:说|讲|要求|通知|写道|发消息说)|告诉(?:他|她|他们|她们|客户|大家|老板|同事)|(?:邮件|消息|通知)(?:里|中)?(?:说|写着)",
  "Chinese: reported speech — cues after it are someone else's words.",
  ["帮我写一封邮件告诉客户以后的交付时间会推迟。", "老板说以后谁再迟到就扣钱"],
  ["我说以后都用中文"]),
]

ids = {r["id"] for r in rules}
for r in new:
    if r["id"] in ids:
        rules = [x if x["id"] != r["id"] else r for x in rules]
    else:
        rules.append(r)
json.dump(rules, open(P, "w", encoding="utf-8"), ensure_ascii=False, indent=1)
open(P, "a").write("\n")
print(len(rules))
