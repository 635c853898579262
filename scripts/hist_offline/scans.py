"""The scanned pages: historical documents written for paperworks (CC0), one per language and script.

Every person, place and figure in these pages is invented for the project, so a question about them
can only be answered from the page itself. Each page names its language, script and style.
"""

from __future__ import annotations

from dataclasses import dataclass

from hist_offline.render import PageStyle

LICENCE = "CC0-1.0 (written for paperworks)"


@dataclass(frozen=True)
class Scan:
    """One page scan: file stem, language (ISO 639), script, title, body, footer and look."""

    stem: str
    language: str
    script: str
    title: str
    body: str
    footer: str
    style: PageStyle
    source: str


SCANS: list[Scan] = [
    Scan("eng_letter_1787", "en", "Latin", "Port Aldwen, the 14th of March 1787",
         "Gentlemen,\n"
         "I have the honour to acquaint you that the brig Amity of Falmouth came safe to anchor in the "
         "Roads on Tuesday last, after a passage of nineteen days from Bergen. We landed three hundred "
         "and twelve barrels of salted herring, of which forty-six were found leaking and were sold at "
         "the quay for what they would fetch. The sound barrels are lodged in the warehouse of "
         "Mr. Corran on Fish Street.\n"
         "The pilot Eben Tregothnan brought us over the bar at the second attempt, the wind being foul; "
         "I paid him two guineas for his trouble, which I beg you will allow in my account.\n"
         "The price of herring here stands at nineteen shillings the barrel. I am advised to hold the "
         "remainder until Lady Day, when the Lenten demand is expected to raise it.\n"
         "The crew are eleven in number and all in health, save the cook, William Ashe, who has a "
         "fever and lies ashore.\n"
         "I remain, Gentlemen, your most obedient servant,\n"
         "Josiah Marrable, Master",
         "- 1 -", PageStyle(font="serif", size=24, rotation_deg=1.2),
         "Letter of a ship's master to Messrs Pellow and Finch, merchants"),
    Scan("lat_register_1612", "la", "Latin",
         "Liber baptizatorum parochiae S. Walburgae in oppido Hervilla, anno Domini 1612",
         "Die 3 Aprilis baptizata est Agnes, filia legitima Joannis Kelner fabri ferrarii et "
         "Margarethae uxoris eius. Patrini fuerunt Georgius Pfister et Ursula Hainin.\n"
         "Die 9 Aprilis baptizatus est Michael, filius legitimus Leonhardi Strobl agricolae et "
         "Barbarae uxoris eius. Patrinus fuit Casparus Widmann, molitor.\n"
         "Die 17 Aprilis baptizati sunt gemelli Joannes et Paulus, filii legitimi Wolfgangi Rainer "
         "sutoris et Catharinae uxoris eius. Patrini fuerunt Andreas Lechner et Maria Widmannin.\n"
         "Die 28 Aprilis baptizata est Elisabetha, filia illegitima Annae Fuchsin ancillae; pater "
         "dicitur miles quidam peregrinus. Patrina fuit Ursula Hainin.\n"
         "Die 2 Maii baptizatus est Sebastianus, filius legitimus Jacobi Moser textoris et Evae "
         "uxoris eius, qui eodem die obiit.\n"
         "Baptizavit omnes M. Christophorus Aigner, parochus loci.",
         "fol. 14", PageStyle(font="serif", size=24, rotation_deg=-0.8, noise=10.0),
         "Parish baptism register, one folio"),
    Scan("deu_fraktur_1743", "de", "Fraktur",
         "Verordnung des Raths der Stadt Hohenwalde wegen des Brodtpreises",
         "Wir Bürgermeister und Rath der Stadt Hohenwalde fügen hiermit jedermänniglich zu wissen, daß "
         "wegen der theuren Zeit und des gestiegenen Kornpreises nachfolgende Ordnung gehalten werden "
         "soll:\n"
         "Erstlich soll ein Laib Roggenbrodt von sechs Pfund nicht theurer als um sieben Kreuzer "
         "verkauft werden.\n"
         "Zum andern soll ein Weißbrodt von einem Pfund nicht über drey Kreuzer kosten.\n"
         "Drittens sollen die Becker ihr Brodt alle Mittwoch und Sonnabend auf dem Marckt vor dem "
         "Rathhaus feil haben.\n"
         "Wer dieser Ordnung zuwider handelt, soll das erste Mal um drey Gulden, das andere Mal um "
         "sechs Gulden gestraft und das Brodt den Armen im Spital gegeben werden.\n"
         "Gegeben Hohenwalde, den 12. October 1743.\n"
         "Johann Caspar Riedl, Bürgermeister.",
         "- 3 -", PageStyle(font="fraktur", size=30, rotation_deg=0.7),
         "Printed town-council decree on the price of bread"),
    Scan("fra_notaire_1768", "fr", "Latin",
         "Par-devant Maître Étienne Rouffiac, notaire royal à Saint-Aubin-sur-Lère",
         "Fut présent sieur Pierre Lamothe, tonnelier, demeurant au bourg de Saint-Aubin-sur-Lère, "
         "lequel a vendu et cédé à demoiselle Jeanne Vidal, veuve du sieur Antoine Sarrazin, "
         "marchande, la vigne appelée le Clos-Berthaud, contenant environ trois journaux, située au "
         "lieu dit les Coustals, confrontant du levant au chemin de Lauzerte et du couchant aux terres "
         "du sieur Delpech.\n"
         "Cette vente est faite pour et moyennant le prix et somme de mille quatre cent cinquante "
         "livres tournois, dont huit cents livres payées comptant en louis d'or et monnaie ayant cours, "
         "et le restant payable à la fête de Saint-Martin prochaine.\n"
         "Fait et passé audit Saint-Aubin-sur-Lère, en l'étude du notaire, le vingt-deuxième jour du "
         "mois de juin mil sept cent soixante-huit, en présence de Jean Bories, maréchal, et de "
         "Guillaume Fabre, praticien, témoins requis.",
         "- 27 -", PageStyle(font="serif", size=24, rotation_deg=-1.5),
         "Notarial deed of sale of a vineyard"),
    Scan("grc_inventory", "grc", "Greek (polytonic)", "ΤΑΜΙΑΙ ΤΩΝ ΙΕΡΩΝ ΧΡΗΜΑΤΩΝ",
         "Ἐπὶ Φιλοκλέους ἄρχοντος οἱ ταμίαι τῶν ἱερῶν χρημάτων τῆς Ἀρτέμιδος, Καλλίστρατος Νικίου "
         "καὶ Δημοκλῆς Ἀρίστωνος, παρέδοσαν τοῖς μετ᾽ αὐτοὺς ταμίαις τάδε·\n"
         "φιάλαι ἀργυραῖ δώδεκα, σταθμὸν δραχμαὶ χίλιαι διακόσιαι·\n"
         "στέφανος χρυσοῦς εἷς, ὃν ἀνέθηκε Μενεκράτης Σωσιβίου, σταθμὸν δραχμαὶ ἑκατὸν εἴκοσι·\n"
         "κρατὴρ χαλκοῦς ἀνεπίγραφος εἷς·\n"
         "θυμιατήρια χαλκᾶ τρία, ὧν τὸ ἓν κατεαγός.\n"
         "Οἱ δὲ παραλαβόντες ταμίαι Ἡγήσιππος Θέωνος καὶ Λυσικλῆς Δίωνος.",
         "II", PageStyle(font="serif", size=26, rotation_deg=1.8),
         "Transcribed temple inventory handed over between treasurers"),
    Scan("rus_receipt_1859", "ru", "Cyrillic (pre-1918 orthography)", "Квитанція",
         "Получено мною, нижеподписавшимся, отъ купца второй гильдіи Аѳанасія Петровича Сѣрова за "
         "проданные ему сто сорокъ пудовъ пеньки, по три рубля двадцать копѣекъ за пудъ, всего "
         "четыреста сорокъ восемь рублей серебромъ сполна.\n"
         "Пенька сдана на пристани села Верхнія Лужки и погружена на барку № 17 судохозяина Ивана "
         "Кузьмича Дрѣмова для отправленія въ Ригу.\n"
         "Въ чемъ и подписуюсь. Мая 6 дня 1859 года.\n"
         "Крестьянинъ Гаврила Осиповъ Тюринъ, а за неграмотствомъ его и по личной просьбѣ руку "
         "приложилъ дьячокъ Николай Смирновъ.",
         "№ 212", PageStyle(font="serif", size=24, rotation_deg=-1.1),
         "Receipt for a sale of hemp"),
    Scan("ara_contract_1248ah", "ar", "Arabic", "صك بيع",
         "الحمد لله وحده. اشترى الحاج محمود بن سليمان القباني من التاجر يوسف بن إلياس الحلبي مئة "
         "وعشرين ثوبا من القطن الأبيض بثمن قدره ثلاثة آلاف وستمائة قرش، دفع منها ألفي قرش نقدا "
         "والباقي يدفع عند وصول القافلة من حماة.\n"
         "وشهد على ذلك الشيخ عبد الرحمن بن عمر الدباغ والسيد خليل بن أحمد النجار.\n"
         "وكتب في اليوم العاشر من شهر رجب سنة ١٢٤٨ للهجرة.",
         "٤", PageStyle(font="arabic", size=32, rtl=True, language="ar", rotation_deg=0.9),
         "Deed of sale of cotton cloth"),
    Scan("heb_pinkas_1795", "he", "Hebrew", "פנקס החברה קדישא דקהילת זעלדוב",
         "ביום ג׳ ט״ו לחודש אייר שנת תקנ״ה נתקבל הבחור שמואל בן אברהם הלוי לחבר בחברה קדישא, ונתן "
         "לקופת החברה שמונה עשר זהובים.\n"
         "ובאותו יום נבחרו לגבאים ר׳ משה בן יעקב ור׳ זלמן בן דוד, ולנאמן הקופה ר׳ יוסף בן מאיר.\n"
         "ונגמר בהסכמת כל החברים שכל חבר יתן בכל שנה בערב ראש השנה שלושה זהובים לקופה.\n"
         "נאום אהרן בן צבי הסופר",
         "דף ט", PageStyle(font="hebrew", size=28, rtl=True, language="he", rotation_deg=-0.6),
         "Minute book of a burial society"),
    Scan("zho_gazetteer", "lzh", "Han (traditional)", "白沙縣志 卷三 災祥",
         "嘉慶十二年夏五月，大雨連旬，溪水暴漲，壞民田三百四十頃，漂沒廬舍六百餘間。知縣林鶴年開常平倉，"
         "發穀二千四百石賑濟，活民八千餘口。\n"
         "嘉慶十四年秋，蝗自北來，食禾殆盡，是歲米價騰貴，斗米錢三百文。\n"
         "道光三年冬十二月，城東火，延燒民居一百二十家，知縣周汝霖捐俸修之。",
         "卷三 葉十一", PageStyle(font="cjk", size=34, rotation_deg=1.4),
         "Page of a county gazetteer, section on disasters and portents"),
    Scan("ita_ledger_1702", "it", "Latin", "Libro de' conti di Zuane Morosin, mercante in Chioggia, 1702",
         "Adì 3 marzo. Ricevuto da ser Bortolo Fabris per sale venduto, moggia dodici, a lire 18 il "
         "moggio: lire 216.\n"
         "Adì 11 marzo. Pagato al barcaiolo Toni Zennaro per il trasporto a Padova: lire 14 soldi 10.\n"
         "Adì 19 marzo. Ricevuto da madonna Lucia Bianchin per olio, miri sei, a lire 9 il miro: lire 54.\n"
         "Adì 27 marzo. Pagato per l'affitto del magazzino in calle dei Saoneri: lire 40.\n"
         "Somma delle entrate lire 270; somma delle spese lire 54 soldi 10.",
         "c. 31", PageStyle(font="serif", size=24, rotation_deg=0.6, noise=11.0),
         "Page of a merchant's account book"),
    Scan("spa_manifest_1781", "es", "Latin", "Manifiesto de la fragata Nuestra Señora del Rosario, alias La Esperanza",
         "Capitán y maestre: Don Francisco Xavier de Arrieta. Salida del puerto de Cádiz el día 4 de "
         "febrero de 1781 con destino a Veracruz.\n"
         "Carga: ciento ochenta pipas de vino de Jerez; noventa y seis fardos de lienzo de Bretaña; "
         "cuarenta cajones de papel; doce cajas de clavazón.\n"
         "Pasajeros: Don Manuel Ibarra, oficial de la Real Hacienda, con su criado; fray Tomás de "
         "Ulloa, religioso franciscano.\n"
         "Tripulación: cuarenta y dos hombres, incluidos ocho grumetes y cuatro pajes.",
         "- 2 -", PageStyle(font="serif", size=24, rotation_deg=-1.9),
         "Cargo manifest of a frigate"),
]
