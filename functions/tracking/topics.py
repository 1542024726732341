"""The topic catalog: the identifiers a subscription's ``topics`` may hold."""

from __future__ import annotations

TOPICS: dict[str, tuple[str, str]] = {
    "factory-farming": ("Factory farming", "Intensive animal agriculture and its conditions."),
    "legislation": ("Legislation", "Bills, regulations and votes affecting animals."),
    "wildlife": ("Wildlife", "Wild animals, habitats and protection."),
    "cage-free": ("Cage-free", "Cage-free egg pledges, progress and backsliding."),
    "ag-gag": ("Ag-gag laws", "Laws restricting undercover investigations on farms."),
    "animal-testing": ("Animal testing", "Animal experiments and alternatives to them."),
    "fur": ("Fur", "Fur farming, trade and bans."),
    "aquaculture": ("Aquaculture", "Fish and shellfish farming."),
    "fishing": ("Fishing", "Commercial fishing, bycatch and fisheries policy."),
    "live-export": ("Live export", "Long-distance transport of live animals."),
    "slaughter": ("Slaughter", "Slaughter practices, stunning and oversight."),
    "dairy": ("Dairy", "The dairy industry and its practices."),
    "plant-based": ("Plant-based food", "Plant-based products, markets and policy."),
    "cultivated-meat": ("Cultivated meat", "Cell-cultivated meat: science, approvals, markets."),
    "companion-animals": ("Companion animals", "Pets, shelters, breeding and welfare."),
    "marine-mammals": ("Marine mammals", "Whales, dolphins, seals and their protection."),
    "zoos-aquariums": ("Zoos and aquariums", "Captive wild animals in zoos and aquariums."),
    "wildlife-trade": ("Wildlife trade", "Legal and illegal trade in wild animals."),
    "zoonotic-disease": ("Zoonotic disease", "Diseases crossing between animals and humans."),
    "corporate-campaigns": ("Corporate campaigns", "Campaigns for corporate welfare policies."),
}
