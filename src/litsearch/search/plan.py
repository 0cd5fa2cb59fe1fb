"""Plan a search: which providers (discipline detection) and which requests.

Discipline detection is a small keyword model a reader can audit: a term list per
field, matched on word starts, and the matched words printed as the reason. Which provider
each field brings is its own declaration (``auto_choice``): the ones that cover every field
(Semantic Scholar, OpenAlex) are always searched, biomedical words add the biomedical ones
(PubMed), computing/maths/physics words the technical ones (arXiv).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..core.services import ALWAYS, BIOMEDICAL, SEARCH, TECHNICAL
from ..providers import registry
from ..providers.base import QueryMode, get_provider

# Word starts ("stems"): "genom" matches genome, genomic, genomics…; a trailing "="
# asks for the whole word ("gene=" must not match "generation").
BIOMEDICAL_STEMS = (
    # medicine, molecules, cells
    "gene=", "genes", "genetic", "genom", "protein", "cell=", "cells", "clinic", "patient", "disease", "cancer",
    "tumo", "oncol", "therap", "drug", "pharma", "vaccin", "virus", "viral", "bacteri", "cyanobacteri", "microb",
    "infect", "immun", "antibod", "crispr", "cas9", "rna", "dna", "mrna", "sirna", "mutat", "enzym", "metabol",
    "neuro", "brain", "alzheimer", "parkinson", "diabet", "cardi", "heart", "stroke", "hypertens", "obes",
    "surg", "medic", "health", "epidem", "pandem", "covid", "sars", "hiv", "malaria", "tubercul",
    "placebo", "randomized controlled", "randomised controlled", "randomized clinical", "randomised clinical",
    "randomized trial", "randomised trial", "trial", "cohort", "mortalit", "morbid", "diagnos", "prognos", "biomark",
    "pathog", "inflamm", "antibiot", "steroid", "insulin", "hormon", "pregnan", "neonat", "pediatr",
    "paediatr", "nurs", "dental", "psychiatr", "depress", "anxiety", "schizophren", "autism",
    "in vivo", "in vitro", "stem cell", "off-target",
    "transcript", "epigen", "methylat", "proteom", "sequencing", "lesion", "syndrome", "toxicol", "toxin",
    "cytotox", "genotox", "hepatotox", "dose", "dosing", "receptor", "ligand", "kinase", "antigen", "lymph", "leukem",
    "leukaem", "blood", "serum", "plasma concentration", "plasma level", "liver", "kidney", "renal", "lung",
    "pulmon", "asthma", "copd", "biolog", "physiolog", "anatom", "bioinform",
    "chromosom", "allele", "genotyp", "phenotyp", "chromatin", "histone", "ribosom", "mitochondri", "peptide",
    "amino acid", "lipid", "cytokine", "macrophage", "microbiome", "biofilm", "apoptos", "autophag", "senescen",
    "pluripoten", "circadian", "angiogen", "venom",
    # organisms
    "organism", "species", "mouse", "mice", "murine", "rats", "zebrafish", "drosophila", "elegans", "nematode",
    "xenopus", "planaria", "axolotl", "arabidopsis", "yeast", "saccharomyces", "fungi", "fungal", "vertebrat",
    "invertebrat", "mammal", "primate", "rodent", "insect", "honeybee", "butterfl", "chick=", "chicken", "avian",
    "bird", "fish=", "fishes", "amphibia", "frog", "tadpole", "sea urchin", "coral", "phylogen",
    "speciation", "photosynth", "chloroplast", "stomata",
    # tissues and organs
    "tissue", "organoid", "epithel", "mesenchym", "fibroblast", "keratinocyt", "melanocyt", "melan", "pigment",
    "follicle", "tooth=", "teeth", "bone=", "bones", "cartilag", "muscle", "skin=", "wound", "limb", "fin=", "fins",
    "retina", "cornea", "glaucoma", "hepat", "intestin", "gastr", "pancrea", "thyroid", "mammary", "nephr",
    # development
    "morphogen", "embryo", "developmental", "organogen", "gastrula", "somit", "neurula", "germ layer", "germline",
    "left-right asym", "metamorphos", "regeneration", "neural crest", "neural tube",
    # drugs by their class, and the conditions they treat: a drug-class review's topic is often
    # only the class's name ("Calcium Channel Blockers", "ACE Inhibitors", "Estrogens")
    "blocker", "beta-block", "inhibitor", "antagonist=", "antagonists=", "agonist=", "agonists=",
    "antihistamin", "antipsychot", "antidepress", "anxiolyt", "anticonvuls", "antiepilep", "antiemet",
    "antihypertens", "antiarrhythm", "anticoagul", "antiplatelet", "antivir", "antifung", "antimicrob",
    "anti-inflamm", "antiinflamm", "nsaid", "analges", "opioid", "anesthe", "anaesthe", "sedati", "hypoglyc",
    "glycem", "glycaem", "diuretic", "statin=", "statins=", "estrogen", "oestrogen", "progest", "androgen",
    "testosteron", "contracept", "relaxant", "corticoster", "glucocortic", "bronchodilat", "vasodilat",
    "benzodiazep", "incontinen", "urinar", "bladder", "prostat", "menopaus", "osteopor", "arthrit", "rheumat",
    "migrain", "epilep", "dementia", "angina", "arrhythm", "atrial", "myocard", "coronary", "ischem", "ischaem",
    "thromb", "cholesterol", "allerg", "chronic pain", "back pain",
)
# A drug named alone ("metformin", "rituximab") is an open class no list of words can hold; its
# international nonproprietary name ends in the stem WHO's INN programme gives its class (-olol
# beta blockers, -pril ACE inhibitors, -mab monoclonal antibodies, -tinib kinase inhibitors…). A
# word with such an ending and at least two letters before it names a drug. Endings that close
# ordinary words are left out or narrowed: "-vir" (triumvir, Elzevir) is kept as -navir, -ovir…,
# "-nib" as -tinib, -fenib…, "-olone" (violone) as -solone, -nolone; the rest end no word of
# Webster's unabridged but drugs, steroids, sterols and the like (web2, 234,450 words; checked with
# the english-words package, not a dependency).
DRUG_NAME_ENDINGS = (
    "olol", "pril", "sartan", "dipine", "formin", "gliptin", "glitazone", "gliflozin", "glinide",
    "tinib", "fenib", "ciclib", "parib", "zomib", "lisib", "mab", "navir", "ovir", "buvir", "previr", "gravir", "sivir",
    "mivir", "cillin", "mycin", "micin", "floxacin", "oxacin", "cycline", "conazole", "prazole", "nidazole",
    "bendazole", "trozole", "tidine", "triptan", "setron", "lukast", "afil", "oxetine", "triptyline", "azepam",
    "zolam", "barbital", "caine", "profen", "coxib", "dronate", "semide", "thiazide", "platin", "rubicin", "taxel",
    "parin", "xaban", "gatran", "pidem", "peridone", "zapine", "terol", "solone", "nolone", "asone", "isone", "relin",
    "pressin", "tocin", "lutamide", "mustine", "trexate", "uracil", "citabine", "limus", "sporin",
)
DRUG_NAME_PREFIX = 2  # letters a drug's name has before its ending at least ("Caine" alone is a name)
# Phrases of computing, engineering and physics that hold a biomedical word ("genetic
# algorithm", "computer virus", "cell phone"): taken out of the text before the biomedical
# words are looked for, so they do not bring PubMed and Europe PMC into a computing topic.
NOT_BIOMEDICAL = (
    "genetic algorithm", "genetic programming", "genetic operator", "computer virus", "virus scanner",
    "cell phone", "cell tower", "cell site", "cell-free massive", "mouse dynamics", "mouse movement",
    "mouse cursor", "computer mouse", "neuromorphic", "regenerative braking", "plasma physics", "plasma etch",
    "skin detection", "immune-inspired", "artificial immune", "ad blocker", "ad-blocker", "adblocker",
    "pop-up blocker", "popup blocker", "write blocker", "tracker blocker",
)

COMPUTING_MATH_PHYSICS_STEMS = (
    "algorithm", "neural", "network", "deep learn", "machine learn", "learning", "reinforcement",
    "transformer", "attention", "language model", "llm", "gpt", "bert", "embedding", "diffusion model",
    "generative", "gans", "convolution", "graph", "optimi", "gradient", "stochastic", "bayesian",
    "inference", "comput", "software", "program", "compiler", "database", "distributed", "parallel",
    "cryptograph", "security", "privacy", "robot", "vision", "image", "speech", "nlp", "retrieval",
    "recommend", "quantum", "qubit", "physics", "particle", "boson", "quark", "hadron", "neutrino",
    "cosmolog", "galax", "astro", "black hole", "gravit", "relativ", "string theory", "condensed matter",
    "superconduct", "spintron", "spin-orbit", "lattice", "topolog", "photon", "laser", "optic", "plasma physics",
    "theorem", "lemma", "conjecture", "algebra", "geometr", "manifold", "equation", "differential",
    "probabilit", "statistic", "combinator", "number theory", "prime", "matrix", "tensor",
    "eigen", "complexity", "automata", "logic", "formal verif", "benchmark", "dataset",
)


@dataclass
class ProviderChoice:
    providers: list[str]
    reason: str
    biomedical_terms: list[str] = field(default_factory=list)  # the words that chose each field
    technical_terms: list[str] = field(default_factory=list)


def _matched_terms(text: str, stems: tuple[str, ...]) -> list[str]:
    """Words of ``text`` that start with one of ``stems`` (multi-word stems match phrases),
    in the order of ``stems``. Plain string tests, no regular expressions: this runs before
    the first request, where compiling hundreds of patterns would cost tens of milliseconds."""
    lowered = " " + re.sub(r"[^\w\s-]", " ", text.lower()) + " "
    found: list[str] = []
    for stem in stems:
        whole = stem.endswith("=")
        stem = stem.rstrip("=")
        start = _word_start(lowered, stem)
        if start < 0:
            continue
        end = start + len(stem)
        if whole and (lowered[end].isalnum() or lowered[end] in "_-"):
            continue
        while not whole and (lowered[end].isalnum() or lowered[end] in "_-"):
            end += 1
        word = lowered[start:end]
        if word not in found:
            found.append(word)
    return found


def _drug_names(text: str) -> list[str]:
    """Words of ``text`` that end like a drug's international nonproprietary name, in order."""
    found: list[str] = []
    for word in re.findall(r"[a-z]+", text.lower()):
        if word not in found and any(word.endswith(ending) and len(word) >= len(ending) + DRUG_NAME_PREFIX
                                     for ending in DRUG_NAME_ENDINGS):
            found.append(word)
    return found


def _without(text: str, phrases: tuple[str, ...]) -> str:
    """``text`` (lower case) with every phrase that starts a word blanked out."""
    lowered = text.lower()
    for phrase in phrases:
        start = _word_start(" " + lowered, phrase)
        while start >= 0:
            lowered = lowered[:start - 1] + " " * len(phrase) + lowered[start - 1 + len(phrase):]
            start = _word_start(" " + lowered, phrase)
    return lowered


def _word_start(text: str, stem: str) -> int:
    """Where ``stem`` first starts a word of ``text`` (not after a letter, digit, _ or -), or -1."""
    position = text.find(stem)
    while position >= 0:
        before = text[position - 1]
        if not (before.isalnum() or before in "_-"):
            return position
        position = text.find(stem, position + 1)
    return -1


def _names(providers: list[str]) -> str:
    return " and ".join([", ".join(providers[:-1]), providers[-1]] if len(providers) > 2 else providers)


def detect_providers(texts: list[str]) -> ProviderChoice:
    """Choose providers for ``--providers auto`` from the topic and its variants: every
    provider declared for all fields, and those declared for a field the topic's words name."""
    joined = " ".join(texts)
    unmixed = _without(joined, NOT_BIOMEDICAL)
    bio = _matched_terms(unmixed, BIOMEDICAL_STEMS)
    bio += [word for word in _drug_names(unmixed) if word not in bio]
    tech = _matched_terms(joined, COMPUTING_MATH_PHYSICS_STEMS)
    fields = [field for field, terms in ((BIOMEDICAL, bio), (TECHNICAL, tech)) if terms]
    providers = registry.chosen_for(fields)
    by_choice = {choice: [name for name in registry.searched_by_auto()
                          if registry.service(name).auto_choice == choice] for choice in (ALWAYS, BIOMEDICAL, TECHNICAL)}
    reasons = [f"{_names(by_choice[ALWAYS])} cover{'s' if len(by_choice[ALWAYS]) == 1 else ''} every field"]
    if bio and by_choice[BIOMEDICAL]:
        reasons.append(f"{_names(by_choice[BIOMEDICAL])} for biomedical terms " + ", ".join(repr(t) for t in bio[:4]))
    if tech and by_choice[TECHNICAL]:
        reasons.append(f"{_names(by_choice[TECHNICAL])} for computing/maths/physics terms "
                       + ", ".join(repr(t) for t in tech[:4]))
    if not bio and not tech:
        reasons.append(f"no biomedical or computing/physics terms, so neither "
                       f"{' nor '.join(by_choice[BIOMEDICAL] + by_choice[TECHNICAL])}")
    return ProviderChoice(providers, "; ".join(reasons), bio, tech)


def parse_provider_list(value: str) -> list[str]:
    """``semantic_scholar,pubmed`` -> names, in the registry's order; ValueError on unknown names."""
    names = [part.strip().lower().replace("-", "_") for part in value.split(",") if part.strip()]
    if not names:
        raise ValueError("--providers needs at least one provider name")
    known = registry.searchable()
    unknown = [n for n in names if n not in known]
    if unknown:
        raise ValueError(f"unknown provider(s): {', '.join(unknown)} (choose from {', '.join(known)} or auto)")
    if all(not registry.service(name).can(SEARCH) for name in names):
        raise ValueError(f"--providers {','.join(names)} needs at least one scholarly provider beside it")
    return [p for p in known if p in names]


@dataclass
class ProviderRequest:
    """What one provider will be asked: the query as sent and how it was built."""

    provider: str
    query: str
    mode: QueryMode


def plan_requests(providers: list[str], queries: list[str], sort: str = "relevance") -> list[ProviderRequest]:
    """One request plan per provider, as each provider chooses for these queries and this sort
    (``Provider.plan_query``): variants fold into one boolean query where the API has OR, so
    they never multiply the number of calls; elsewhere the topic alone, cut to what it accepts."""
    plans = []
    for name in providers:
        query, mode = get_provider(name).plan_query(queries, sort)
        plans.append(ProviderRequest(name, query, mode))
    return plans
