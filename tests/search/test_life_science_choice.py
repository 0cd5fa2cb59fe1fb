"""The automatic provider choice covers the life sciences' vocabulary (organisms, tissues,
development, drug classes and the conditions they treat) without bringing PubMed and Europe PMC into clearly computing topics. Both
directions are checked on lists of real topics; the second list of each was written before the
vocabulary was, and kept apart while it was tuned (docs/search.md gives the figures)."""

from __future__ import annotations

import pytest

from litsearch.search.plan import detect_providers

LIFE_SCIENCES = [
    "morphogenesis", "zebrafish pigmentation patterns", "Drosophila wing disc growth", "C. elegans dauer formation",
    "Arabidopsis flowering time", "limb bud outgrowth", "neural crest migration", "somitogenesis segmentation clock",
    "planarian regeneration", "axolotl limb regeneration", "Xenopus gastrulation", "intestinal organoids",
    "wound healing in skin", "cartilage tissue engineering", "bone fracture healing", "chick embryo heart looping",
    "yeast cell cycle", "coral bleaching", "Turing patterns in the mouse palate",
    "phylogenetics of birds", "photosynthesis under drought", "gut microbiome and obesity", "cellular senescence",
    "melanocyte stem cells", "embryonic stem cell pluripotency", "hair follicle cycling", "tooth development",
    "fin ray patterning", "insect wing venation", "epithelial mesenchymal transition", "apoptosis in development",
    "germ layer specification", "left-right asymmetry in vertebrates", "retinal degeneration", "muscle fibre types",
]
LIFE_SCIENCES_HELD_OUT = [
    "neurulation in mice", "vertebrate eye evolution", "stomatal development in plants", "butterfly wing eyespots",
    "sea urchin embryo", "tadpole tail regeneration", "root hair growth in Arabidopsis", "honeybee caste determination",
    "thyroid hormone metamorphosis", "liver zonation", "kidney nephron progenitors", "feather patterning in birds",
    "lung branching morphogenesis", "angiogenesis in tumours", "mammary gland development",
    "bacterial biofilm formation", "fungal pathogen of wheat", "circadian clock in cyanobacteria",
    "sponge cell types", "snake venom evolution",
]
# Drug classes and the conditions they treat: a drug-class review's topic is often the class's name
# alone ("Calcium Channel Blockers"), which named no word of the list above: nine of the ten
# drug-class reviews of ../shared/benchmarks/ranking/reviews were searched without PubMed.
PHARMACOLOGY = [
    "ACE Inhibitors", "Antihistamines", "Atypical Antipsychotics", "Beta Blockers", "Calcium Channel Blockers",
    "Estrogens", "NSAIDS", "Oral Hypoglycemics", "Skeletal Muscle Relaxants", "Urinary Incontinence",
]
PHARMACOLOGY_HELD_OUT = [
    "statins for primary prevention", "proton pump inhibitors and fracture risk", "anticoagulants in atrial fibrillation",
    "opioid tapering", "benzodiazepine withdrawal", "loop diuretics in heart failure", "triptans for migraine",
    "bisphosphonates and osteoporosis", "overactive bladder antimuscarinics", "inhaled corticosteroids",
    "Beta-blockers after myocardial infarction", "metformin and lactic acidosis",
]
# A drug named alone (no class, no condition, no other word of the list): its international
# nonproprietary name's ending (WHO's INN stems: -olol, -pril, -sartan, -mab, -tinib…) says what it
# is. Written before the endings were, one drug per class, none of them tried while choosing.
DRUG_NAMES_HELD_OUT = [
    "propranolol for infantile haemangioma", "lisinopril cough", "losartan versus candesartan",
    "amlodipine versus nifedipine", "sitagliptin in elderly people", "empagliflozin outcomes", "imatinib resistance",
    "rituximab biosimilars", "oseltamivir stockpiling", "sofosbuvir pricing", "amoxicillin versus penicillin V",
    "azithromycin and QT prolongation", "ciprofloxacin tendon rupture", "doxycycline for acne",
    "fluconazole prophylaxis", "omeprazole long-term use", "sumatriptan nasal spray",
    "ondansetron versus metoclopramide", "montelukast safety", "sildenafil for altitude sickness",
    "fluoxetine in adolescents", "amitriptyline versus duloxetine", "diazepam versus lorazepam",
    "ibuprofen versus paracetamol", "celecoxib versus naproxen", "alendronate holidays", "furosemide infusion",
    "cisplatin ototoxicity", "paclitaxel-coated balloons", "enoxaparin bridging", "rivaroxaban versus warfarin",
    "dabigatran reversal", "zolpidem and falls", "olanzapine weight gain", "salmeterol safety",
    "dexamethasone for sore throat", "prednisolone for Bell's palsy", "letrozole versus clomiphene",
    "methotrexate monitoring", "capecitabine adherence", "tacrolimus levels", "ciclosporin in psoriasis",
    "remdesivir efficacy", "bortezomib retreatment", "olaparib maintenance",
]
# Words of other fields that end like a drug's name: Latin offices (triumvir), printers (Elzevir),
# places and names; none may bring PubMed.
DRUG_LIKE_WORDS = [
    "Elzevir editions of the classics", "the triumvir Crassus", "decemvirs and Roman law", "Merlin legends",
    "Berlin housing markets", "April weather", "concept drift detection", "the Caine mutiny",
]
COMPUTING = [
    "graph neural networks", "transformer language models", "genetic algorithms for scheduling",
    "evolutionary algorithms for neural architecture search", "cellular automata", "cell-free massive MIMO",
    "computer virus detection", "randomized algorithms for low-rank approximation", "toxic comment classification",
    "plasma physics simulation", "regenerative braking control", "image segmentation with deep learning",
    "software development effort estimation", "random seed sensitivity in reinforcement learning",
    "root finding methods", "tree search in games", "signal processing for radar", "quantum error correction",
    "distributed consensus protocols", "database query optimization", "network intrusion detection",
    "bloom filters", "cellular networks 5G", "genetic programming", "code generation with large language models",
    "population-based training", "spiking neural networks on neuromorphic hardware", "swarm robotics",
    "federated learning privacy", "neural radiance fields", "diffusion models for image synthesis",
    "graph coloring heuristics", "skin detection in images", "mouse dynamics biometrics",
]
COMPUTING_HELD_OUT = [
    "convolutional networks for speech", "cell phone usage prediction", "virus scanner evasion",
    "toxic language detection", "genetic algorithm hyperparameter tuning", "randomized rounding",
    "neuromorphic computing chips", "developer productivity", "seed selection in fuzzing", "decision tree ensembles",
    "artificial immune systems for anomaly detection", "evolutionary game theory", "cellular network handover",
    "mouse cursor tracking", "ad blocker detection", "write blockers in digital forensics", "pop-up blockers",
    "antagonistic multi-agent reinforcement learning", "stating requirements in natural language",
    "tracker blockers and web privacy",
    # Left out, and said: "tissue-like soft robots" brings PubMed (bio-inspired robotics, which it does index).
]


@pytest.mark.parametrize("topic", LIFE_SCIENCES + LIFE_SCIENCES_HELD_OUT + PHARMACOLOGY + PHARMACOLOGY_HELD_OUT
                         + DRUG_NAMES_HELD_OUT)
def test_a_life_science_topic_brings_pubmed_and_europe_pmc(topic):
    choice = detect_providers([topic])
    assert {"pubmed", "europepmc"} <= set(choice.providers), choice.reason
    assert choice.biomedical_terms  # the reason names the words that decided


@pytest.mark.parametrize("topic", COMPUTING + COMPUTING_HELD_OUT + DRUG_LIKE_WORDS)
def test_a_computing_topic_does_not(topic):
    choice = detect_providers([topic])
    assert "pubmed" not in choice.providers and "europepmc" not in choice.providers, choice.reason


@pytest.mark.parametrize("topic", ["biodiversity finance", "medieval monastic economies", "carbon markets"])
def test_a_topic_of_neither_field_brings_neither(topic):
    assert set(detect_providers([topic]).providers) == {"semantic_scholar", "openalex"}


@pytest.mark.parametrize("topic", ["genetic algorithms for protein folding", "computer virus and human virus",
                                   "cell phone radiation and brain tumours", "deep learning for bone fracture"])
def test_a_computing_phrase_does_not_hide_the_biology_beside_it(topic):
    assert "pubmed" in detect_providers([topic]).providers
